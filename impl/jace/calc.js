// Calculator: the JACE runtime's embedded demo module. A four-function
// calculator with a display, one pending operator and an accumulator.
// Pressing 7, divide, 2, equals shows 3.5.
globalThis.jace = {
  manifest: { name: "calculator", version: "1.0.0" },

  init(env) {
    return { display: "0", acc: null, op: null, fresh: true };
  },

  view(state) {
    return {
      type: "app",
      id: "calculator",
      title: "Calculator",
      children: [
        {
          type: "display",
          id: "display",
          value: state.display,
          pending: state.op === null ? null : { acc: state.acc, op: state.op },
          presentation: { align: "right", font: "monospace", size: "xl" },
        },
        {
          type: "keypad",
          id: "keypad",
          audience: "human",
          rows: [["7", "8", "9", "÷"], ["4", "5", "6", "×"], ["1", "2", "3", "−"], ["0", ".", "=", "+"], ["C"]],
          presentation: { columns: 4 },
        },
        {
          type: "hint",
          id: "agent-hint",
          audience: "agent",
          text: "Enter digits with calc.input, choose an operator with calc.op, finish with calc.equals.",
        },
        {
          type: "affordances",
          id: "actions",
          actions: [
            { name: "calc.input", params: { digit: "0-9 or \".\"" } },
            { name: "calc.op", params: { op: "add | subtract | multiply | divide" } },
            { name: "calc.equals", params: {} },
            { name: "calc.clear", params: {} },
          ],
        },
      ],
    };
  },

  actions: {
    "calc.input"(state, params) {
      const d = params && params.digit;
      const key = typeof d === "number" && Number.isInteger(d) && d >= 0 && d <= 9 ? String(d)
        : typeof d === "string" && /^[0-9.]$/.test(d) ? d : null;
      if (key === null) {
        return { state, error: { code: "INVALID_PARAMS", message: "params.digit must be a digit 0-9 or \".\"" },
          audit_preview: "INPUT ?" };
      }
      let display = state.fresh ? (key === "." ? "0." : key) : state.display + key;
      if (!state.fresh && key === "." && state.display.includes(".")) display = state.display;
      if (!state.fresh && state.display === "0" && key !== ".") display = key;
      return { state: { ...state, display, fresh: false }, result: { display }, audit_preview: "INPUT " + key };
    },

    "calc.op"(state, params) {
      const op = params && params.op;
      if (!["add", "subtract", "multiply", "divide"].includes(op)) {
        return { state, error: { code: "INVALID_PARAMS", message: "params.op must be add, subtract, multiply or divide" },
          audit_preview: "OP ?" };
      }
      let acc = Number(state.display);
      if (state.op !== null && !state.fresh) {
        const r = apply(state.acc, state.op, acc);
        if (r.error) return { state, error: r.error, audit_preview: "OP " + op };
        acc = r.value;
      }
      return { state: { display: String(acc), acc, op, fresh: true }, result: { acc, op }, audit_preview: "OP " + op };
    },

    "calc.equals"(state) {
      if (state.op === null) {
        return { state: { ...state, fresh: true }, result: { value: Number(state.display) }, audit_preview: "EQUALS " + state.display };
      }
      const b = Number(state.display);
      const r = apply(state.acc, state.op, b);
      const preview = "EQUALS " + state.acc + " " + SYMBOL[state.op] + " " + b;
      if (r.error) return { state, error: r.error, audit_preview: preview };
      const display = String(r.value);
      return {
        state: { display, acc: null, op: null, fresh: true },
        result: { value: r.value },
        audit_preview: preview + " -> " + display,
        events: [{ type: "calc.result", entity: "calculator", changes: { display } }],
      };
    },

    "calc.clear"(state) {
      return { state: { display: "0", acc: null, op: null, fresh: true }, result: { display: "0" }, audit_preview: "CLEAR" };
    },
  },
};

const SYMBOL = { add: "+", subtract: "-", multiply: "*", divide: "/" };

function apply(a, op, b) {
  switch (op) {
    case "add": return { value: a + b };
    case "subtract": return { value: a - b };
    case "multiply": return { value: a * b };
    case "divide":
      if (b === 0) return { error: { code: "DIVIDE_BY_ZERO", message: "cannot divide by zero" } };
      return { value: a / b };
  }
  return { error: { code: "INVALID_PARAMS", message: "unknown operator " + op } };
}
