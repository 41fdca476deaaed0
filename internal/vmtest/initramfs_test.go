package vmtest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The archive is cpio's newc form as the kernel reads it: a 110-byte header of hex
// fields, the name with its NUL padded to 4 bytes, the data padded to 4 bytes, and the
// trailer. The bytes below are written out by hand from the format.
func TestCpioNewc(t *testing.T) {
	var b bytes.Buffer
	c := &cpioWriter{w: &b}
	c.file("ab", []byte("xyz"))
	c.char("dev/console", 5, 1)
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	want := "070701" + "00000001" + "000081ed" + "00000000" + "00000000" + "00000001" + "00000000" +
		"00000003" + "00000000" + "00000000" + "00000000" + "00000000" + "00000003" + "00000000" +
		"ab\x00" + "\x00\x00\x00" + // 110 + 3 = 113, padded to 116
		"xyz\x00" +
		"070701" + "00000002" + "00002180" + "00000000" + "00000000" + "00000001" + "00000000" +
		"00000000" + "00000000" + "00000000" + "00000005" + "00000001" + "0000000c" + "00000000" +
		"dev/console\x00" + // 110 + 12 = 122, padded to 124
		"\x00\x00" +
		"070701" + "00000003" + "00000000" + "00000000" + "00000000" + "00000001" + "00000000" +
		"00000000" + "00000000" + "00000000" + "00000000" + "00000000" + "0000000b" + "00000000" +
		"TRAILER!!!\x00" + // 110 + 11 = 121, padded to 124
		"\x00\x00\x00"
	if got := b.String(); got != want {
		t.Errorf("archive:\n%q\nwant:\n%q", got, want)
	}
}

// The modules load after what they need, each once, from modules.dep; a module built
// into the kernel is not loaded; a missing one is named with what needed it.
func TestLoadOrder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"modules.dep":     "kernel/fs/top.ko: kernel/mid.ko kernel/low-er.ko\nkernel/mid.ko: kernel/low-er.ko\nkernel/low-er.ko:\nkernel/lone.ko: kernel/gone.ko\n",
		"modules.builtin": "kernel/core.ko\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	order, err := loadOrder(dir, []string{"top", "core", "mid"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range order {
		got = append(got, m.file)
	}
	if want := []string{"kernel/low-er.ko", "kernel/mid.ko", "kernel/fs/top.ko"}; !slices.Equal(got, want) {
		t.Errorf("load order %q, want %q", got, want)
	}
	if _, err := loadOrder(dir, []string{"lone"}); err == nil || !strings.Contains(err.Error(), "no module gone (needed by vmtest <- lone)") {
		t.Errorf("a missing module: %v", err)
	}
}
