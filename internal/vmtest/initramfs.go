package vmtest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// cpioWriter writes a cpio archive in the "newc" form, the one the kernel unpacks as an
// initramfs.
type cpioWriter struct {
	w   io.Writer
	ino int
	err error
}

const (
	modeDir  = 0o040000
	modeFile = 0o100000
	modeChar = 0o020000
)

// entry writes one member: its header, its name and its data, each padded to 4 bytes.
func (c *cpioWriter) entry(name string, mode uint32, rdevMajor, rdevMinor int, data []byte) {
	if c.err != nil {
		return
	}
	c.ino++
	nlink := 1
	if mode&0o170000 == modeDir {
		nlink = 2
	}
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdevMajor, rdevMinor, len(name)+1, 0)
	var b bytes.Buffer
	b.WriteString(hdr)
	b.WriteString(name)
	b.WriteByte(0)
	pad(&b)
	b.Write(data)
	pad(&b)
	_, c.err = c.w.Write(b.Bytes())
}

func pad(b *bytes.Buffer) {
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
}

func (c *cpioWriter) dir(name string)               { c.entry(name, modeDir|0o755, 0, 0, nil) }
func (c *cpioWriter) file(name string, data []byte) { c.entry(name, modeFile|0o755, 0, 0, data) }
func (c *cpioWriter) char(name string, major, minor int) {
	c.entry(name, modeChar|0o600, major, minor, nil)
}

// close writes the trailer.
func (c *cpioWriter) close() error {
	c.entry("TRAILER!!!", 0, 0, 0, nil)
	return c.err
}

// kernel is a kernel folder as .ci/vm-kernel prepares it: a Debian kernel package unpacked
// (boot/vmlinuz-RELEASE and lib/modules/RELEASE), and the kernel's ELF image unpacked from
// vmlinuz (boot/vmlinux-RELEASE), if there.
type kernel struct {
	image   string // the bootable image
	modules string // lib/modules/RELEASE
}

// findKernel finds the image (vmlinux if there, else vmlinuz) and its modules' folder in
// dir.
func findKernel(dir string) (kernel, error) {
	images, _ := filepath.Glob(filepath.Join(dir, "boot", "vmlinuz-*"))
	if len(images) != 1 {
		return kernel{}, fmt.Errorf("%s holds %d kernel images (boot/vmlinuz-*), want one", dir, len(images))
	}
	release := strings.TrimPrefix(filepath.Base(images[0]), "vmlinuz-")
	mods := filepath.Join(dir, "lib", "modules", release)
	if _, err := os.Stat(mods); err != nil {
		return kernel{}, fmt.Errorf("the kernel %s has no modules in %s: %v", images[0], dir, err)
	}
	k := kernel{image: images[0], modules: mods}
	// The kernel unpacked (.ci/vm-kernel makes it) boots several times faster under TCG:
	// qemu starts it straight (PVH), with no firmware and no unpacking by the boot stub.
	elfImage := filepath.Join(dir, "boot", "vmlinux-"+release)
	if f, err := os.Open(elfImage); err == nil {
		magic := make([]byte, 4)
		_, err := io.ReadFull(f, magic)
		f.Close()
		if err == nil && string(magic) == elf.ELFMAG {
			k.image = elfImage
		}
	}
	return k, nil
}

// module is one kernel module file and the modules it needs.
type module struct {
	file    string // path under the modules' folder
	depends []string
}

// moduleName is how modules.dep and the modules' own "depends" name a module: its file's
// name without its extensions, with '-' as '_'.
func moduleName(file string) string {
	base := path.Base(file)
	if i := strings.Index(base, ".ko"); i >= 0 {
		base = base[:i]
	}
	return strings.ReplaceAll(base, "-", "_")
}

// moduleIndex lists the kernel's modules by name, with what each needs: from modules.dep
// when depmod made one, else from each module's own .modinfo section (a kernel package
// unpacked without its scripts has no modules.dep). Modules built into the kernel
// (modules.builtin) are left out.
func moduleIndex(dir string) (map[string]module, map[string]bool, error) {
	builtin := map[string]bool{}
	if data, err := os.ReadFile(filepath.Join(dir, "modules.builtin")); err == nil {
		for _, l := range strings.Fields(string(data)) {
			builtin[moduleName(l)] = true
		}
	}
	index := map[string]module{}
	if f, err := os.Open(filepath.Join(dir, "modules.dep")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			file, deps, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			m := module{file: file}
			for _, d := range strings.Fields(deps) {
				m.depends = append(m.depends, moduleName(d))
			}
			index[moduleName(file)] = m
		}
		return index, builtin, sc.Err()
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(d.Name(), ".ko") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		index[moduleName(p)] = module{file: rel}
		return nil
	})
	return index, builtin, err
}

// loadOrder is every module the wanted ones need, each after what it needs, with none
// twice; a module built into the kernel needs no loading.
func loadOrder(dir string, want []string) ([]module, error) {
	index, builtin, err := moduleIndex(dir)
	if err != nil {
		return nil, err
	}
	_, haveDep := os.Stat(filepath.Join(dir, "modules.dep"))
	var order []module
	seen := map[string]bool{}
	var visit func(name string, chain []string) error
	visit = func(name string, chain []string) error {
		name = moduleName(name)
		if seen[name] || builtin[name] {
			return nil
		}
		m, ok := index[name]
		if !ok {
			return fmt.Errorf("the kernel has no module %s (needed by %s) in %s", name, strings.Join(chain, " <- "), dir)
		}
		seen[name] = true
		if haveDep != nil {
			data, err := moduleData(filepath.Join(dir, m.file))
			if err != nil {
				return err
			}
			if m.depends, err = modinfoDepends(data); err != nil {
				return fmt.Errorf("%s: %v", m.file, err)
			}
		}
		for _, d := range m.depends {
			if err := visit(d, append(chain, name)); err != nil {
				return err
			}
		}
		order = append(order, m)
		return nil
	}
	for _, w := range want {
		if err := visit(w, []string{"vmtest"}); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// modinfoDepends reads the "depends=" entry of a module's .modinfo section.
func modinfoDepends(ko []byte) ([]string, error) {
	f, err := elf.NewFile(bytes.NewReader(ko))
	if err != nil {
		return nil, err
	}
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, fmt.Errorf("no .modinfo section")
	}
	info, err := sec.Data()
	if err != nil {
		return nil, err
	}
	var deps []string
	for _, kv := range bytes.Split(info, []byte{0}) {
		if v, ok := strings.CutPrefix(string(kv), "depends="); ok && v != "" {
			deps = append(deps, strings.Split(v, ",")...)
		}
	}
	sort.Strings(deps)
	return deps, nil
}

// moduleData reads a module file, uncompressed: a kernel loads a compressed one only when
// built to, so the initramfs holds them plain (gzip by Go, xz and zstd by their commands).
func moduleData(file string) ([]byte, error) {
	switch {
	case strings.HasSuffix(file, ".ko"):
		return os.ReadFile(file)
	case strings.HasSuffix(file, ".ko.gz"):
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		return io.ReadAll(z)
	case strings.HasSuffix(file, ".ko.xz"), strings.HasSuffix(file, ".ko.zst"):
		tool := "xz"
		if strings.HasSuffix(file, ".zst") {
			tool = "zstd"
		}
		out, err := exec.Command(tool, "-dc", file).Output()
		if err != nil {
			return nil, fmt.Errorf("uncompressing %s with %s: %v", file, tool, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: not a kernel module file", file)
}
