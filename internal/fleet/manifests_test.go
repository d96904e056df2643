package fleet

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/plyhq/ply/internal/exitcode"
)

// The exit codes a retry cannot help: docs/scale.md's recipes fail at
// once on these and retry (resume) on every other failure.
var final = []int{exitcode.Auth, exitcode.Input, exitcode.Config, exitcode.TurnLimit, exitcode.Budget, exitcode.Unsaved}

// retried are the codes the recipes retry.
var retried = []int{exitcode.Error, exitcode.ToolError, exitcode.Cancelled}

// Every exit code of ply is either final or retried: a new code must be
// placed in the recipes.
func TestExitCodesPlaced(t *testing.T) {
	for _, m := range exitcode.Table {
		if m.Code != exitcode.OK && !slices.Contains(final, m.Code) && !slices.Contains(retried, m.Code) {
			t.Errorf("exit code %d (%s) is neither final nor retried in docs/scale.md's recipes", m.Code, m.Means)
		}
	}
}

func docsDir(t *testing.T) string {
	t.Helper()
	return filepath.Join("..", "..", "docs", "scale")
}

// yamlDocs decodes every document of a YAML file, strictly.
func yamlDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var docs []map[string]any
	for {
		var d map[string]any
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
	return docs
}

// get walks m along keys (a string is a map key, an int a list index).
func get(t *testing.T, m any, keys ...any) any {
	t.Helper()
	cur := m
	for i, k := range keys {
		switch k := k.(type) {
		case string:
			mm, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("%v: not a map at %v", keys, keys[:i])
			}
			if cur, ok = mm[k]; !ok {
				t.Fatalf("missing %v", keys[:i+1])
			}
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no item %d at %v", keys, k, keys[:i])
			}
			cur = l[k]
		}
	}
	return cur
}

func TestKubernetesJob(t *testing.T) {
	docs := yamlDocs(t, filepath.Join(docsDir(t), "ply-job.yaml"))
	kinds := map[string]map[string]any{}
	for _, d := range docs {
		api, kind := get(t, d, "apiVersion").(string), get(t, d, "kind").(string)
		if get(t, d, "metadata", "name").(string) == "" {
			t.Errorf("%s without a name", kind)
		}
		want := map[string]string{"Job": "batch/v1", "ConfigMap": "v1", "PersistentVolumeClaim": "v1"}[kind]
		if want == "" || api != want {
			t.Errorf("kind %s, apiVersion %s: not one of the recipe's", kind, api)
		}
		kinds[kind] = d
	}
	job := kinds["Job"]
	spec := get(t, job, "spec").(map[string]any)
	if spec["completionMode"] != "Indexed" || spec["backoffLimitPerIndex"] == nil {
		t.Errorf("the Job is not Indexed with a backoff limit per index: %v", spec)
	}
	if spec["completions"] == nil || spec["parallelism"] == nil || spec["activeDeadlineSeconds"] == nil {
		t.Errorf("the Job lacks completions, parallelism or a deadline")
	}
	pod := get(t, spec, "template", "spec")
	if get(t, pod, "restartPolicy") != "Never" {
		t.Error("a pod failure policy needs restartPolicy Never")
	}
	// The failure policy: disruptions ignored, the final codes fail the
	// index, nothing else is listed (so it is retried).
	rules := get(t, spec, "podFailurePolicy", "rules").([]any)
	var failIndex []int
	ignoresDisruption := false
	for _, r := range rules {
		r := r.(map[string]any)
		switch r["action"] {
		case "Ignore":
			ignoresDisruption = get(t, r, "onPodConditions", 0, "type") == "DisruptionTarget"
		case "FailIndex", "FailJob":
			if get(t, r, "onExitCodes", "operator") != "In" || get(t, r, "onExitCodes", "containerName") != "ply" {
				t.Errorf("rule %v: want operator In on the ply container", r)
			}
			for _, v := range get(t, r, "onExitCodes", "values").([]any) {
				failIndex = append(failIndex, v.(int))
			}
		default:
			t.Errorf("rule with action %v", r["action"])
		}
	}
	slices.Sort(failIndex)
	if !ignoresDisruption || !slices.Equal(failIndex, final) {
		t.Errorf("failure policy: disruption ignored %v, final codes %v, want %v", ignoresDisruption, failIndex, final)
	}
	c := get(t, pod, "containers", 0).(map[string]any)
	if c["name"] != "ply" || get(t, c, "resources", "limits", "memory") == nil || get(t, c, "resources", "limits", "cpu") == nil {
		t.Errorf("the ply container lacks its name or limits: %v", c)
	}
	// The key comes from a Secret, never a literal.
	keyFromSecret := false
	for _, e := range get(t, c, "env").([]any) {
		e := e.(map[string]any)
		if e["name"] == "OPENAI_API_KEY" {
			keyFromSecret = e["value"] == nil && get(t, e, "valueFrom", "secretKeyRef", "key") != nil
		}
	}
	if !keyFromSecret {
		t.Error("OPENAI_API_KEY does not come from a secretKeyRef")
	}
	// Every mount names a volume of the pod; PLY_HOME is on the claim.
	vols := map[string]map[string]any{}
	for _, v := range get(t, pod, "volumes").([]any) {
		vols[get(t, v, "name").(string)] = v.(map[string]any)
	}
	mounts := map[string]string{}
	for _, m := range get(t, c, "volumeMounts").([]any) {
		name := get(t, m, "name").(string)
		if vols[name] == nil {
			t.Errorf("mount of unknown volume %s", name)
		}
		mounts[get(t, m, "mountPath").(string)] = name
	}
	claim := get(t, vols[mounts["/data"]], "persistentVolumeClaim", "claimName")
	if claim != get(t, kinds["PersistentVolumeClaim"], "metadata", "name") {
		t.Errorf("/data is not the recipe's volume claim")
	}
	cm := get(t, kinds["ConfigMap"], "data").(map[string]any)
	script := cm["run.sh"].(string)
	for _, want := range []string{`PLY_HOME="/data/`, "--max-wall-time", "--max-session-turns", "--max-tool-calls", "--session-id", "ply -r", "JOB_COMPLETION_INDEX"} {
		if !strings.Contains(script, want) {
			t.Errorf("run.sh lacks %q", want)
		}
	}
	if get(t, vols[mounts["/etc/ply"]], "configMap", "name") != get(t, kinds["ConfigMap"], "metadata", "name") {
		t.Error("/etc/ply is not the recipe's ConfigMap")
	}
	if n, lines := get(t, spec, "completions").(int), strings.Count(cm["tasks.txt"].(string), "\n"); n != lines {
		t.Errorf("completions %d, but %d tasks", n, lines)
	}
}

func TestActionsMatrix(t *testing.T) {
	docs := yamlDocs(t, filepath.Join(docsDir(t), "github-actions.yml"))
	if len(docs) != 1 {
		t.Fatalf("%d documents", len(docs))
	}
	w := docs[0]
	if get(t, w, "name") == nil || get(t, w, "on") == nil {
		t.Error("a workflow needs a name and triggers")
	}
	jobs := get(t, w, "jobs").(map[string]any)
	if len(jobs) != 1 {
		t.Fatalf("%d jobs", len(jobs))
	}
	for name, j := range jobs {
		if get(t, j, "runs-on") == nil || get(t, j, "timeout-minutes") == nil {
			t.Errorf("job %s lacks runs-on or a timeout", name)
		}
		if len(get(t, j, "strategy", "matrix", "task").([]any)) == 0 || get(t, j, "strategy", "fail-fast") != false {
			t.Errorf("job %s: want a task matrix that does not stop at the first failure", name)
		}
		if k := get(t, j, "env", "OPENAI_API_KEY").(string); !strings.HasPrefix(k, "${{ secrets.") {
			t.Errorf("the key is %q, not a secret", k)
		}
		var script string
		for _, s := range get(t, j, "steps").([]any) {
			s := s.(map[string]any)
			if s["uses"] == nil && s["run"] == nil {
				t.Errorf("a step with neither uses nor run: %v", s)
			}
			if r, ok := s["run"].(string); ok && strings.Contains(r, "ply --session-id") {
				script = r
			}
		}
		for _, want := range []string{`export PLY_HOME="$RUNNER_TEMP/`, "--max-wall-time", "--max-session-turns", "--max-tool-calls", `ply -r "$id"`} {
			if !strings.Contains(script, want) {
				t.Errorf("the run step lacks %q", want)
			}
		}
		// It resumes on exactly the retried codes that a second run can
		// mend, never on a final one.
		for _, c := range final {
			if strings.Contains(script, `"$code" = `+strconv.Itoa(c)) {
				t.Errorf("the run step retries the final code %d", c)
			}
		}
		for _, c := range []int{exitcode.Error, exitcode.ToolError} {
			if !strings.Contains(script, `"$code" = `+strconv.Itoa(c)) {
				t.Errorf("the run step does not retry %d", c)
			}
		}
	}
}
