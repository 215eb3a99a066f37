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
			{"recurse", 500, "INTERNAL", "InternalError: stack overflow"},
			{"recurseCatching", 500, "INTERNAL", "Action timed out"},
		}},
		{"memory_bomb.js", 0, 0, []attack{
			{"bomb", 500, "INTERNAL", "Memory limit exceeded"},
			{"doubling", 500, "INTERNAL", "InternalError: string too long"},
		}},
		{"huge_output.js", 0, 0, []attack{
			{"huge", 500, "INTERNAL", "over the limit of 1048576"},
			{"wide", 500, "INTERNAL", "Memory limit exceeded"},
		}},
		{"non_json.js", 0, 0, []attack{
			{"undef", 500, "INTERNAL", "action returned undefined"},
			{"fn", 500, "INTERNAL", "action returned a function"},
			{"big", 500, "INTERNAL", "not JSON"},
			{"cyclic", 500, "INTERNAL", "not JSON"},
			{"promise", 500, "INTERNAL", "returned a Promise"},
			{"asyncAction", 500, "INTERNAL", "returned a Promise"},
			{"number", 500, "INTERNAL", "something other than an ActionResult object"},
			{"noState", 500, "INTERNAL", "returned no state"},
			{"fnInside", 200, "", `"result":{}`},
			{"badPreview", 500, "INTERNAL", "audit_preview must be a string"},
			{"badEvents", 500, "INTERNAL", "events must be an array"},
			{"badError", 500, "INTERNAL", "error must be {code, message?}"},
			{"throwsString", 500, "INTERNAL", "just a string"},
			{"throwsError", 500, "INTERNAL", "RangeError: out of range"},
		}},
		{"eval_attempts.js", 0, 0, []attack{
			{"directEval", 500, "INTERNAL", "ReferenceError: 'eval' is not defined"},
			{"indirectEval", 500, "INTERNAL", "TypeError"},
			{"functionCtor", 500, "INTERNAL", "EvalError: code generation from strings is disabled"},
			{"ctorOfFunction", 500, "INTERNAL", "EvalError: code generation from strings is disabled"},
			{"asyncCtor", 500, "INTERNAL", "EvalError: code generation from strings is disabled"},
			{"timer", 500, "INTERNAL", "ReferenceError: 'setTimeout' is not defined"},
			{"interval", 500, "INTERNAL", "ReferenceError: 'setInterval' is not defined"},
			{"fetchIt", 500, "INTERNAL", "ReferenceError: 'fetch' is not defined"},
			{"xhr", 500, "INTERNAL", "ReferenceError: 'XMLHttpRequest' is not defined"},
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
			{"ok", 500, "INTERNAL", "init: Error: init refuses"},
		}},
		{"throwing_view.js", 0, 0, []attack{
			{"ok", 500, "INTERNAL", "view: TypeError: view refuses"},
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
				// /press, which also renders the view of the new state.
				r := h.post("/press", fmt.Sprintf(`{"action":%q,"env":{"session_id":"attacker"}}`, a.action))
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
				r := h.post("/press", fmt.Sprintf(`{"action":"ok","env":{"session_id":%q}}`, sid))
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
	h.expect(r, 400, "INVALID_PARAMS")
	if !strings.Contains(r.get("error.message").String(), "Action timed out") {
		t.Fatalf("message %s", r.body)
	}
	// The previous module (the calculator) is still loaded.
	h.expect(h.post("/press", `{"action":"calc.clear"}`), 200, "")
}
