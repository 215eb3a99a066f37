package jace

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileModules runs the corpus in testdata/hostile: each attack is
// answered with its documented error, and afterwards the runtime still
// serves the same module in the attacked session and in a fresh one.
func TestHostileModules(t *testing.T) {
	type attack struct {
		action string
		status int
		code   string
		msg    string // substring of error.message, or of the body on success
	}
	corpus := []struct {
		file  string
		fuel  int64 // explicit fuel guard, 0 = timeout-as-fuel only
		tfuel int64 // timeout budget override; recursion that throws and
		// catches is expensive per fuel unit (stack traces), so keep it short
		attacks []attack
	}{
		{"infinite_loop.js", 0, 0, []attack{
			{"spin", 500, "INTERNAL", "Action timed out"},
			{"spinCatching", 500, "INTERNAL", "Action timed out"},
		}},
		{"infinite_loop.js", 100, 0, []attack{
			{"spin", 500, "INTERNAL", "Fuel exhausted"},
		}},
		{"deep_recursion.js", 0, 20, []attack{
			{"recurse", 500, "MODULE_ERROR", "InternalError: stack overflow"},
			{"recurseCatching", 500, "INTERNAL", "Action timed out"},
		}},
		{"memory_bomb.js", 0, 0, []attack{
			{"bomb", 500, "INTERNAL", "Memory limit exceeded"},
			{"doubling", 500, "MODULE_ERROR", "InternalError: string too long"},
		}},
		{"huge_output.js", 0, 0, []attack{
			{"huge", 500, "BAD_RESULT", "over the limit of 1048576"},
			{"wide", 500, "INTERNAL", "Memory limit exceeded"},
		}},
		{"non_json.js", 0, 0, []attack{
			{"undef", 500, "BAD_RESULT", "action returned undefined"},
			{"fn", 500, "BAD_RESULT", "action returned a function"},
			{"big", 500, "BAD_RESULT", "not JSON"},
			{"cyclic", 500, "BAD_RESULT", "not JSON"},
			{"promise", 500, "BAD_RESULT", "returned a Promise"},
			{"asyncAction", 500, "BAD_RESULT", "returned a Promise"},
			{"number", 500, "BAD_RESULT", "want an ActionResult object"},
			{"noState", 500, "BAD_RESULT", "returned no state"},
			{"fnInside", 200, "", `"result":{}`},
			{"badPreview", 500, "BAD_RESULT", "audit_preview must be a string"},
			{"badEvents", 500, "BAD_RESULT", "events must be an array"},
			{"badError", 500, "BAD_RESULT", "error must be {code, message?}"},
			{"throwsString", 500, "MODULE_ERROR", "just a string"},
			{"throwsError", 500, "MODULE_ERROR", "RangeError: out of range"},
		}},
		{"eval_attempts.js", 0, 0, []attack{
			{"directEval", 500, "MODULE_ERROR", "ReferenceError: 'eval' is not defined"},
			{"indirectEval", 500, "MODULE_ERROR", "TypeError"},
			{"functionCtor", 500, "MODULE_ERROR", "EvalError: code generation from strings is disabled"},
			{"ctorOfFunction", 500, "MODULE_ERROR", "EvalError: code generation from strings is disabled"},
			{"asyncCtor", 500, "MODULE_ERROR", "EvalError: code generation from strings is disabled"},
			{"timer", 500, "MODULE_ERROR", "ReferenceError: 'setTimeout' is not defined"},
			{"interval", 500, "MODULE_ERROR", "ReferenceError: 'setInterval' is not defined"},
			{"fetchIt", 500, "MODULE_ERROR", "ReferenceError: 'fetch' is not defined"},
			{"xhr", 500, "MODULE_ERROR", "ReferenceError: 'XMLHttpRequest' is not defined"},
			{"dynImport", 200, "", `"result":"[object Promise]"`},
			{"probe", 200, "", `"result":["undefined","function","undefined","undefined","undefined","undefined","undefined"]`},
		}},
		{"real_clock.js", 0, 0, []attack{
			{"clocks", 200, "", `"now":1767225600000,"zero":1767225600000,"str":"Thu Jan 01 2026 00:00:00 GMT+0000","viaProto":1767225600000,"viaCtor":1767225600000,"viaReflect":1767225600000,"sub":1767225600000,"iso":"2026-01-01T00:00:00.000Z"`},
		}},
		{"prototype_tamper.js", 0, 0, []attack{
			{"reachHost", 200, "", `"result":"no host entry point in reach"`},
			{"tamper", 200, "", `"result":"tampered"`},
			{"probe", 200, "", `"polluted":"yes","now":1}`},
		}},
		{"throwing_init.js", 0, 0, []attack{
			{"ok", 500, "MODULE_ERROR", "init: Error: init refuses"},
		}},
		{"throwing_view.js", 0, 0, []attack{
			{"ok", 500, "MODULE_ERROR", "view: TypeError: view refuses"},
		}},
	}
	for i, c := range corpus {
		t.Run(fmt.Sprintf("%s/%d", c.file, i), func(t *testing.T) {
			cfg := simConfig()
			cfg.Fuel = c.fuel
			if c.tfuel > 0 {
				cfg.TimeoutFuel = c.tfuel
			}
			h := newHarness(t, cfg)
			h.load(filepath.Join("testdata", "hostile", c.file))
			for _, a := range c.attacks {
				r := h.post("/actions", fmt.Sprintf(`{"action":%q,"session_id":"attacker"}`, a.action))
				h.expect(r, a.status, a.code)
				text := r.get("error.message").String()
				if a.status == 200 {
					text = r.body
				}
				if !strings.Contains(text, a.msg) {
					t.Fatalf("%s: %q lacks %q", a.action, text, a.msg)
				}
				if a.status != 200 && r.get("audit_preview").String() == "" {
					t.Fatalf("%s: error without audit_preview: %s", a.action, r.body)
				}
				h.expect(h.do(http.MethodGet, "/healthz", ""), 200, "")
			}
			// The runtime keeps serving this module, in other sessions and
			// (unless init or view is what throws) the attacked one.
			okStatus := 200
			if strings.HasPrefix(c.file, "throwing_") {
				okStatus = 500
			}
			for _, sid := range []string{"bystander", "attacker"} {
				r := h.post("/actions", fmt.Sprintf(`{"action":"ok","session_id":%q}`, sid))
				h.expect(r, okStatus, "")
			}
			if c.file == "prototype_tamper.js" {
				r := h.post("/actions", `{"action":"probe","session_id":"bystander"}`)
				if !strings.Contains(r.body, `"polluted":"no","now":1767225600000`) {
					t.Fatalf("tampering leaked into another session: %s", r.body)
				}
			}
		})
	}
}

func TestModuleThatLoopsAtLoadIsRefused(t *testing.T) {
	h := newHarness(t, simConfig())
	r := h.post("/load-file", `{"path":"testdata/hostile/loop_at_load.js"}`)
	h.expect(r, 400, "INVALID_MODULE")
	if !strings.Contains(r.get("error.message").String(), "Action timed out") {
		t.Fatalf("message %s", r.body)
	}
	// The previous module (the calculator) is still loaded.
	h.expect(h.post("/press", `{"action":"calc.clear"}`), 200, "")
}
