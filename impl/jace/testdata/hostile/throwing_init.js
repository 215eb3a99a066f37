globalThis.jace = {
  manifest: { name: "throwing_init", version: "1" },
  init(env) { throw new Error("init refuses"); },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },

  },
};
