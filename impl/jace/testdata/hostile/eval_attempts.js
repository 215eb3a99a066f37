globalThis.jace = {
  manifest: { name: "eval_attempts", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },
    directEval(state) { return { state, result: eval("1+1") }; },
    indirectEval(state) { return { state, result: (0, globalThis.eval)("1+1") }; },
    functionCtor(state) { return { state, result: Function("return 1")() }; },
    ctorOfFunction(state) { return { state, result: (function () {}).constructor("return 1")() }; },
    asyncCtor(state) { return { state, result: String((async function () {}).constructor("return 1")) }; },
    timer(state) { setTimeout(function () {}, 0); return { state }; },
    interval(state) { setInterval(function () {}, 0); return { state }; },
    fetchIt(state) { fetch("http://127.0.0.1/"); return { state }; },
    xhr(state) { new XMLHttpRequest(); return { state }; },
    dynImport(state) { return { state, result: String(import("os")) }; },
    probe(state) { return { state, result: [typeof eval, typeof Function.prototype.constructor, typeof setTimeout, typeof fetch, typeof queueMicrotask, typeof Atomics, typeof WeakRef] }; },
  },
};
