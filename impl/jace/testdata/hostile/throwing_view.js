globalThis.jace = {
  manifest: { name: "throwing_view", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { throw new TypeError("view refuses"); },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },

  },
};
