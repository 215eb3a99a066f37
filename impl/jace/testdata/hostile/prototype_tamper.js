globalThis.jace = {
  manifest: { name: "prototype_tamper", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },
    tamper(state) {
      Object.prototype.polluted = "yes";
      Array.prototype.push = function () { return -1; };
      JSON.stringify = function () { return "garbage"; };
      Date.now = function () { return 1; };
      globalThis.__jace_call = function () { return "R1\n{}"; };
      return { state: { n: state.n + 1 }, result: "tampered" };
    },
    probe(state) { return { state, result: { polluted: ({}).polluted === undefined ? "no" : "yes", now: Date.now() } }; },
    reachHost(state) {
      const names = Object.getOwnPropertyNames(globalThis).filter((n) => n.startsWith("__"));
      Object.defineProperty(globalThis, "__jace_call", { value: null });
      return { state, result: names.length === 0 ? "no host entry point in reach" : names.join(",") };
    },
  },
};
