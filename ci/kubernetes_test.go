package ci

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"gauntlet/internal/buildtest"
)

// The facts of the Kubernetes API (batch/v1 Job, core/v1 PodSpec, Container, Volume,
// PersistentVolumeClaim, as the API reference documents them) that the manifests in
// ci/kubernetes rely on, written here as data: there is no network to fetch the OpenAPI
// schema from. Each field the manifests may use has its JSON type; required fields,
// enumerations and the rules between fields are checked by the test below. A field the
// API does not have, a value of the wrong type, a missing required field or a rule broken
// fails here rather than at a course's kubectl apply.
type kind int

const (
	kString kind = iota
	kInt
	kBool
	kQuantity    // a string or a number matching quantityPattern
	kIntOrString // a number, or a string such as "8"
	kStrings     // a list of strings
	kMapQuantity // a map of names to quantities (resources' requests and limits)
	kMapString   // a map of strings (labels, annotations, nodeSelector)
	kObject      // described by its own schema
	kList        // a list of objects of the schema
	kAny         // accepted as it is (a shape the manifests do not use)
)

type field struct {
	kind   kind
	schema string   // kObject, kList: the schema's name in k8sSchemas
	enum   []string // kString: the values allowed, when they are few
}

type schema struct {
	fields   map[string]field
	required []string
	oneOf    []string // exactly one of these (a volume's source)
}

var quantityPattern = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$`)

// dnsLabel is RFC 1123's label: a container's, a volume's name; a Job's name must be one
// too, for the label its pods get (at most 63 characters).
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

var k8sSchemas = map[string]schema{
	"Job": {fields: map[string]field{"apiVersion": {kind: kString}, "kind": {kind: kString}, "metadata": {kind: kObject, schema: "ObjectMeta"},
		"spec": {kind: kObject, schema: "JobSpec"}}, required: []string{"apiVersion", "kind", "metadata", "spec"}},
	"Pod": {fields: map[string]field{"apiVersion": {kind: kString}, "kind": {kind: kString}, "metadata": {kind: kObject, schema: "ObjectMeta"},
		"spec": {kind: kObject, schema: "PodSpec"}}, required: []string{"apiVersion", "kind", "metadata", "spec"}},
	"PersistentVolumeClaim": {fields: map[string]field{"apiVersion": {kind: kString}, "kind": {kind: kString}, "metadata": {kind: kObject, schema: "ObjectMeta"},
		"spec": {kind: kObject, schema: "PersistentVolumeClaimSpec"}}, required: []string{"apiVersion", "kind", "metadata", "spec"}},
	"ObjectMeta": {fields: map[string]field{"name": {kind: kString}, "generateName": {kind: kString}, "namespace": {kind: kString},
		"labels": {kind: kMapString}, "annotations": {kind: kMapString}}},
	"JobSpec": {fields: map[string]field{
		"activeDeadlineSeconds": {kind: kInt}, "backoffLimit": {kind: kInt}, "backoffLimitPerIndex": {kind: kInt},
		"completionMode": {kind: kString, enum: []string{"NonIndexed", "Indexed"}}, "completions": {kind: kInt},
		"managedBy": {kind: kString}, "manualSelector": {kind: kBool}, "maxFailedIndexes": {kind: kInt}, "parallelism": {kind: kInt},
		"podFailurePolicy": {kind: kAny}, "podReplacementPolicy": {kind: kString, enum: []string{"TerminatingOrFailed", "Failed"}},
		"selector": {kind: kAny}, "successPolicy": {kind: kAny}, "suspend": {kind: kBool},
		"template": {kind: kObject, schema: "PodTemplateSpec"}, "ttlSecondsAfterFinished": {kind: kInt},
	}, required: []string{"template"}},
	"PodTemplateSpec": {fields: map[string]field{"metadata": {kind: kObject, schema: "ObjectMeta"}, "spec": {kind: kObject, schema: "PodSpec"}},
		required: []string{"spec"}},
	"PodSpec": {fields: map[string]field{
		"activeDeadlineSeconds": {kind: kInt}, "affinity": {kind: kAny}, "automountServiceAccountToken": {kind: kBool},
		"containers": {kind: kList, schema: "Container"}, "dnsPolicy": {kind: kString}, "enableServiceLinks": {kind: kBool},
		"hostIPC": {kind: kBool}, "hostNetwork": {kind: kBool}, "hostPID": {kind: kBool}, "hostUsers": {kind: kBool},
		"imagePullSecrets": {kind: kAny}, "initContainers": {kind: kList, schema: "Container"}, "nodeName": {kind: kString},
		"nodeSelector": {kind: kMapString}, "priorityClassName": {kind: kString}, "restartPolicy": {kind: kString, enum: []string{"Always", "OnFailure", "Never"}},
		"runtimeClassName": {kind: kString}, "schedulerName": {kind: kString}, "securityContext": {kind: kAny},
		"serviceAccountName": {kind: kString}, "terminationGracePeriodSeconds": {kind: kInt}, "tolerations": {kind: kAny},
		"topologySpreadConstraints": {kind: kAny}, "volumes": {kind: kList, schema: "Volume"},
	}, required: []string{"containers"}},
	"Container": {fields: map[string]field{
		"name": {kind: kString}, "image": {kind: kString}, "imagePullPolicy": {kind: kString, enum: []string{"Always", "Never", "IfNotPresent"}},
		"command": {kind: kStrings}, "args": {kind: kStrings}, "workingDir": {kind: kString}, "env": {kind: kList, schema: "EnvVar"},
		"envFrom": {kind: kAny}, "ports": {kind: kAny}, "resources": {kind: kObject, schema: "ResourceRequirements"},
		"securityContext": {kind: kObject, schema: "SecurityContext"}, "volumeMounts": {kind: kList, schema: "VolumeMount"},
		"stdin": {kind: kBool}, "tty": {kind: kBool}, "terminationMessagePolicy": {kind: kString, enum: []string{"File", "FallbackToLogsOnError"}},
	}, required: []string{"name"}},
	"EnvVar":               {fields: map[string]field{"name": {kind: kString}, "value": {kind: kString}, "valueFrom": {kind: kAny}}, required: []string{"name"}},
	"ResourceRequirements": {fields: map[string]field{"limits": {kind: kMapQuantity}, "requests": {kind: kMapQuantity}, "claims": {kind: kAny}}},
	"SecurityContext": {fields: map[string]field{
		"allowPrivilegeEscalation": {kind: kBool}, "capabilities": {kind: kAny}, "privileged": {kind: kBool},
		"procMount": {kind: kString, enum: []string{"Default", "Unmasked"}}, "readOnlyRootFilesystem": {kind: kBool},
		"runAsGroup": {kind: kInt}, "runAsNonRoot": {kind: kBool}, "runAsUser": {kind: kInt}, "seccompProfile": {kind: kAny},
		"appArmorProfile": {kind: kAny}, "seLinuxOptions": {kind: kAny},
	}},
	"VolumeMount": {fields: map[string]field{"name": {kind: kString}, "mountPath": {kind: kString}, "readOnly": {kind: kBool},
		"subPath": {kind: kString}, "subPathExpr": {kind: kString}, "mountPropagation": {kind: kString}}, required: []string{"name", "mountPath"}},
	"Volume": {fields: map[string]field{"name": {kind: kString}, "persistentVolumeClaim": {kind: kObject, schema: "PVCVolumeSource"},
		"emptyDir": {kind: kAny}, "hostPath": {kind: kAny}, "nfs": {kind: kObject, schema: "NFSVolumeSource"}, "configMap": {kind: kAny}, "secret": {kind: kAny}},
		required: []string{"name"}, oneOf: []string{"persistentVolumeClaim", "emptyDir", "hostPath", "nfs", "configMap", "secret"}},
	"PVCVolumeSource": {fields: map[string]field{"claimName": {kind: kString}, "readOnly": {kind: kBool}}, required: []string{"claimName"}},
	"NFSVolumeSource": {fields: map[string]field{"server": {kind: kString}, "path": {kind: kString}, "readOnly": {kind: kBool}}, required: []string{"server", "path"}},
	"PersistentVolumeClaimSpec": {fields: map[string]field{
		"accessModes": {kind: kStrings}, "resources": {kind: kObject, schema: "VolumeResourceRequirements"}, "storageClassName": {kind: kString},
		"volumeMode": {kind: kString, enum: []string{"Filesystem", "Block"}}, "volumeName": {kind: kString}, "selector": {kind: kAny},
		"dataSource": {kind: kAny}, "dataSourceRef": {kind: kAny}, "volumeAttributesClassName": {kind: kString},
	}},
	"VolumeResourceRequirements": {fields: map[string]field{"limits": {kind: kMapQuantity}, "requests": {kind: kMapQuantity}}},
}

// accessModes a claim may ask for.
var pvcAccessModes = []string{"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"}

// checkSchema checks v against the named schema and returns the problems, each with its
// path in the document.
func checkSchema(path string, v any, name string) []string {
	s, ok := k8sSchemas[name]
	if !ok {
		return []string{fmt.Sprintf("%s: no schema %s (a test bug)", path, name)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: %T, want an object (%s)", path, v, name)}
	}
	var bad []string
	for _, r := range s.required {
		if _, ok := m[r]; !ok {
			bad = append(bad, fmt.Sprintf("%s: no %s (required in %s)", path, r, name))
		}
	}
	if len(s.oneOf) > 0 {
		n := 0
		for _, k := range s.oneOf {
			if _, ok := m[k]; ok {
				n++
			}
		}
		if n != 1 {
			bad = append(bad, fmt.Sprintf("%s: %d of %v, want exactly one", path, n, s.oneOf))
		}
	}
	for k, val := range m {
		f, ok := s.fields[k]
		p := path + "." + k
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: %s has no field %s", p, name, k))
			continue
		}
		bad = append(bad, checkKind(p, val, f)...)
	}
	return bad
}

func checkKind(p string, val any, f field) []string {
	var bad []string
	wrong := func(want string) []string { return []string{fmt.Sprintf("%s: %T %v, want %s", p, val, val, want)} }
	switch f.kind {
	case kString:
		s, ok := val.(string)
		if !ok {
			return wrong("a string")
		}
		if f.enum != nil && !slices.Contains(f.enum, s) {
			bad = append(bad, fmt.Sprintf("%s: %q, want one of %v", p, s, f.enum))
		}
	case kInt:
		if _, ok := val.(int); !ok {
			return wrong("an integer")
		}
	case kBool:
		if _, ok := val.(bool); !ok {
			return wrong("a boolean")
		}
	case kQuantity:
		if !quantityPattern.MatchString(fmt.Sprint(val)) {
			return wrong("a quantity (2, 500m, 4Gi)")
		}
		if _, ok := val.(bool); ok {
			return wrong("a quantity")
		}
	case kStrings:
		l, ok := val.([]any)
		if !ok {
			return wrong("a list of strings")
		}
		for i, x := range l {
			if _, ok := x.(string); !ok {
				bad = append(bad, fmt.Sprintf("%s[%d]: %T %v, want a string", p, i, x, x))
			}
		}
	case kMapQuantity, kMapString:
		m, ok := val.(map[string]any)
		if !ok {
			return wrong("a map")
		}
		for k, x := range m {
			if f.kind == kMapString {
				if _, ok := x.(string); !ok {
					bad = append(bad, fmt.Sprintf("%s.%s: %T %v, want a string", p, k, x, x))
				}
			} else {
				bad = append(bad, checkKind(p+"."+k, x, field{kind: kQuantity})...)
			}
		}
	case kObject:
		bad = append(bad, checkSchema(p, val, f.schema)...)
	case kList:
		l, ok := val.([]any)
		if !ok {
			return wrong("a list")
		}
		for i, x := range l {
			bad = append(bad, checkSchema(fmt.Sprintf("%s[%d]", p, i), x, f.schema)...)
		}
	}
	return bad
}

// readManifest reads a one-document Kubernetes manifest.
func readManifest(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var more map[string]any
	if dec.Decode(&more) == nil {
		t.Fatalf("%s: more than one document", file)
	}
	return doc
}

// get follows a path of keys and list indexes in a decoded document.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// The manifests of ci/kubernetes: each one of the API's kinds, every field known and of
// its type, and the rules between fields that the API server would refuse: an Indexed
// Job has completions, no more parallelism than completions, a Job's pods never restart
// Always, backoffLimitPerIndex only for an Indexed Job, each volume mount names a volume.
// And what the set-up itself needs: SHARDS is the number of completions, the part is
// JOB_COMPLETION_INDEX + 1, both Jobs and the claim name the same volume, mounted at
// /cohort, and the shards' -out is the folder merge reads.
func TestKubernetesManifests(t *testing.T) {
	files := map[string]string{"kubernetes/grade-job.yaml": "Job", "kubernetes/merge-job.yaml": "Job",
		"kubernetes/cohort-volume.yaml": "PersistentVolumeClaim", "kubernetes/cohort-shell.yaml": "Pod"}
	for f, kind := range files {
		doc := readManifest(t, f)
		checkManifest(t, f, kind, doc)
	}
}

// checkManifest checks one manifest of kind (a Job, the claim, or the shell Pod).
func checkManifest(t *testing.T, f, kind string, doc map[string]any) {
	t.Helper()
	{
		want := map[string]string{"Job": "batch/v1", "PersistentVolumeClaim": "v1", "Pod": "v1"}[kind]
		if doc["kind"] != kind || doc["apiVersion"] != want {
			t.Errorf("%s: kind %v, apiVersion %v; want %s, %s", f, doc["kind"], doc["apiVersion"], kind, want)
		}
		if kind == "PersistentVolumeClaim" && doc["metadata"] != nil && get(doc, "metadata", "name") != "gauntlet-cohort" {
			t.Errorf("%s: the claim is %v, want gauntlet-cohort (the Jobs mount it)", f, get(doc, "metadata", "name"))
		}
		for _, p := range checkSchema(f, doc, kind) {
			t.Error(p)
		}
		if name, _ := get(doc, "metadata", "name").(string); !dnsLabel.MatchString(name) {
			t.Errorf("%s: metadata.name %q is not a DNS label", f, name)
		}
		if kind == "PersistentVolumeClaim" {
			modes, _ := get(doc, "spec", "accessModes").([]any)
			for _, m := range modes {
				if !slices.Contains(pvcAccessModes, fmt.Sprint(m)) {
					t.Errorf("%s: access mode %v", f, m)
				}
			}
			if !slices.Contains(modes, any("ReadWriteMany")) || get(doc, "spec", "resources", "requests", "storage") == nil {
				t.Errorf("%s: want ReadWriteMany (the shards run on several nodes) and a storage request", f)
			}
			return
		}
		spec, _ := doc["spec"].(map[string]any)
		pod, _ := get(spec, "template", "spec").(map[string]any)
		if kind == "Pod" {
			pod = spec
			if get(pod, "containers", 0, "securityContext", "privileged") == true {
				t.Errorf("%s: the shell pod is privileged", f)
			}
		}
		if r := pod["restartPolicy"]; r != "Never" && r != "OnFailure" {
			t.Errorf("%s: restartPolicy %v: a Job's pods are Never or OnFailure", f, r)
		}
		if spec["completionMode"] == "Indexed" {
			c, ok := spec["completions"].(int)
			if !ok || c < 1 {
				t.Errorf("%s: an Indexed Job needs completions", f)
			}
			if p, ok := spec["parallelism"].(int); ok && (p < 1 || p > c) {
				t.Errorf("%s: parallelism %d of %d completions", f, p, c)
			}
		} else if spec["backoffLimitPerIndex"] != nil {
			t.Errorf("%s: backoffLimitPerIndex is only for an Indexed Job", f)
		}
		volumes := map[string]any{}
		for _, v := range pod["volumes"].([]any) {
			volumes[fmt.Sprint(get(v, "name"))] = v
		}
		containers, _ := pod["containers"].([]any)
		if len(containers) != 1 {
			t.Fatalf("%s: %d containers, want 1", f, len(containers))
		}
		c := containers[0]
		if name, _ := get(c, "name").(string); !dnsLabel.MatchString(name) || get(c, "image") == nil {
			t.Errorf("%s: container name %q, image %v", f, name, get(c, "image"))
		}
		cohort := ""
		for _, m := range get(c, "volumeMounts").([]any) {
			v, ok := volumes[fmt.Sprint(get(m, "name"))]
			if !ok {
				t.Errorf("%s: mount %v names no volume", f, m)
			}
			if get(m, "mountPath") == "/cohort" {
				cohort = fmt.Sprint(get(v, "persistentVolumeClaim", "claimName"))
			}
		}
		if cohort != "gauntlet-cohort" {
			t.Errorf("%s: /cohort is the claim %q, want gauntlet-cohort (cohort-volume.yaml's)", f, cohort)
		}
		script := fmt.Sprint(get(c, "args", 0))
		if kind == "Pod" {
			return
		}
		if strings.HasSuffix(f, "grade-job.yaml") {
			if spec["completionMode"] != "Indexed" {
				t.Errorf("%s: not an Indexed Job", f)
			}
			env := map[string]string{}
			for _, e := range get(c, "env").([]any) {
				env[fmt.Sprint(get(e, "name"))] = fmt.Sprint(get(e, "value"))
			}
			if env["SHARDS"] != fmt.Sprint(spec["completions"]) || env["GAME"] == "" {
				t.Errorf("%s: SHARDS %q, completions %v, GAME %q: want SHARDS = completions", f, env["SHARDS"], spec["completions"], env["GAME"])
			}
			for _, want := range []string{`-shard "$((JOB_COMPLETION_INDEX + 1))/$SHARDS"`, "-out /cohort/reports /cohort/submissions/*/"} {
				if !strings.Contains(script, want) {
					t.Errorf("%s: the script lacks %q:\n%s", f, want, script)
				}
			}
		} else if first, _, _ := strings.Cut(script, "\n"); !strings.HasPrefix(first, "/cohort/gauntlet merge ") || !strings.HasSuffix(first, " /cohort/reports") {
			t.Errorf("%s: the script does not merge /cohort/reports:\n%s", f, script)
		}
	}
}

// The checks above can fail: a manifest with a field of the wrong type, an unknown field,
// a missing required one and two volume sources fails each.
func TestKubernetesSchemaCatches(t *testing.T) {
	var doc map[string]any
	yaml.Unmarshal([]byte(`
apiVersion: batch/v1
kind: Job
metadata: {name: x}
spec:
  completions: "8"
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
        - image: busybox
          command: sh -c true
          resources: {requests: {cpu: two}}
      volumes:
        - name: v
          emptyDir: {}
          persistentVolumeClaim: {claimName: c}
      nodeSelecter: {a: b}
`), &doc)
	got := strings.Join(checkSchema("x", doc, "Job"), "\n")
	for _, want := range []string{
		"x.spec.completions: string 8, want an integer",
		"x.spec.template.spec.containers[0]: no name (required in Container)",
		"x.spec.template.spec.containers[0].command: string sh -c true, want a list of strings",
		"x.spec.template.spec.containers[0].resources.requests.cpu: string two, want a quantity",
		"x.spec.template.spec.volumes[0]: 2 of",
		"x.spec.template.spec.nodeSelecter: PodSpec has no field nodeSelecter",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}

// The Jobs' own scripts grade a cohort: each pod's script run in turn with its
// JOB_COMPLETION_INDEX (and the Job's SHARDS, 8, for four submissions: four parts grade
// one each, four none), the cohort volume's /cohort a temporary folder here, then the
// merge Job's script. Every script exits 0 (a student's failed case is not a failed pod),
// and the merged CSV holds exactly the marks of one unsharded grade.
func TestKubernetesJobsGradeACohort(t *testing.T) {
	buildtest.Long(t) // nine gauntlet runs and a cohort grade
	root := t.TempDir()
	gauntlet := smallCohort(t, root)
	script := func(file string) string {
		c := get(readManifest(t, file), "spec", "template", "spec", "containers", 0)
		return strings.ReplaceAll(fmt.Sprint(get(c, "args", 0)), "/cohort/", root+"/")
	}
	grade := readManifest(t, "kubernetes/grade-job.yaml")
	shards := get(grade, "spec", "completions").(int)
	for i := range shards {
		code, out := runScript(t, script("kubernetes/grade-job.yaml"), "GAME=dealer2310", fmt.Sprintf("SHARDS=%d", shards),
			"GAUNTLET_FLAGS="+clusterFlags, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		if code != 0 {
			t.Fatalf("pod %d: exit %d\n%s", i, code, out)
		}
	}
	code, out := runScript(t, script("kubernetes/merge-job.yaml"))
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
	sameMarks(t, filepath.Join(root, "cohort.csv"), unshardedCSV(t, gauntlet, root))
	for _, f := range []string{"cohort.html", "cohort.json", "cohort.xml"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the merge Job wrote no %s: %v", f, err)
		}
	}
}

// run.sh drives a whole cohort with kubectl (a fake one here, which records what it is
// asked and answers as a cluster would): the volume (with STORAGE_CLASS), the shell pod,
// the binary and the submissions onto the volume, the earlier run's Jobs deleted before
// the grading Job is made (a rerun), N set in the Job's three places, BOX=rootless and
// OLD_K8S=1 applied, every manifest it applies still valid, the merge after the grading
// Job, and the cohort's files back in RESULTS. Not a real API server: see docs/ci.md.
func TestKubernetesRunScript(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "kubectl.log")
	fake := filepath.Join(root, "kubectl")
	// apply -f - keeps the manifest as applied-N.yaml; exec ... cat FILE answers FILE's name;
	// a Job is Complete as soon as it is asked about.
	script := `#!/bin/sh
echo "$*" >> ` + log + `
case "$1" in
apply) if [ "$3" = - ]; then n=$(ls ` + root + `/applied-*.yaml 2>/dev/null | wc -l); cat > ` + root + `/applied-$n.yaml; fi ;;
get) echo Complete ;;
exec) shift; while [ "$1" != -- ]; do shift; done; shift
	case "$*" in "cat /cohort/"*) echo "contents of $2" ;; *) cat > /dev/null ;; esac ;;
esac
exit 0
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	subs := filepath.Join(root, "subs", "amy")
	if err := os.MkdirAll(subs, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "gauntlet")
	os.WriteFile(bin, []byte("binary"), 0o755)
	results := filepath.Join(root, "results")
	code, out := runScript(t, "kubernetes/run.sh 3 "+filepath.Dir(subs)+" "+bin+" "+results,
		"KUBECTL="+fake, "GAME=stlucia", "STORAGE_CLASS=nfs-client", "BOX=rootless", "OLD_K8S=1", "POLL=0")
	if code != 0 {
		t.Fatalf("run.sh: exit %d\n%s", code, out)
	}
	calls, _ := os.ReadFile(log)
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
		f := strings.Fields(line)
		order = append(order, strings.Join(f[:min(2, len(f))], " "))
	}
	want := "apply -f,apply -f,wait --for=condition=Ready,exec -i,exec -i,delete job,apply -f,get job,apply -f,get job,logs job/gauntlet-merge,exec gauntlet-cohort-shell,exec gauntlet-cohort-shell,exec gauntlet-cohort-shell,exec gauntlet-cohort-shell,delete pod"
	if strings.Join(order, ",") != want {
		t.Errorf("kubectl was asked, in order:\n%s\nwant\n%s", strings.Join(order, ","), strings.ReplaceAll(want, ",", "\n"))
	}
	claim := readManifest(t, filepath.Join(root, "applied-0.yaml"))
	checkManifest(t, "the claim applied", "PersistentVolumeClaim", claim)
	if get(claim, "spec", "storageClassName") != "nfs-client" {
		t.Errorf("storageClassName %v, want nfs-client", get(claim, "spec", "storageClassName"))
	}
	job := readManifest(t, filepath.Join(root, "applied-1.yaml"))
	checkManifest(t, "as applied: grade-job.yaml", "Job", job)
	c := get(job, "spec", "template", "spec", "containers", 0)
	env := map[string]string{}
	for _, e := range get(c, "env").([]any) {
		env[fmt.Sprint(get(e, "name"))] = fmt.Sprint(get(e, "value"))
	}
	if get(job, "spec", "completions") != 3 || get(job, "spec", "parallelism") != 3 || env["SHARDS"] != "3" || env["GAME"] != "stlucia" {
		t.Errorf("completions %v, parallelism %v, SHARDS %q, GAME %q: want 3, 3, 3, stlucia", get(job, "spec", "completions"), get(job, "spec", "parallelism"), env["SHARDS"], env["GAME"])
	}
	if get(c, "securityContext", "runAsUser") != 1000 || get(c, "securityContext", "privileged") != false {
		t.Errorf("BOX=rootless: securityContext %v", get(c, "securityContext"))
	}
	if get(job, "spec", "backoffLimitPerIndex") != nil || get(job, "spec", "backoffLimit") != 16 {
		t.Errorf("OLD_K8S=1: backoffLimitPerIndex %v, backoffLimit %v", get(job, "spec", "backoffLimitPerIndex"), get(job, "spec", "backoffLimit"))
	}
	for _, f := range []string{"cohort.csv", "cohort.html", "cohort.json", "cohort.xml"} {
		if b, err := os.ReadFile(filepath.Join(results, f)); err != nil || string(b) != "contents of /cohort/"+f+"\n" {
			t.Errorf("%s came back as %q (%v)", f, b, err)
		}
	}
}
