globalThis.jace = {
  manifest: { name: "deep_recursion", version: "1" },
  init(env) { return { n: 0 }; },
  view(state) { return { n: state.n }; },
  actions: {
    ok(state) { return { state: { n: state.n + 1 }, audit_preview: "OK" }; },
    recurse(state) { return down(0); },
    recurseCatching(state) { for (;;) { try { down(0); } catch (e) {} } },
  },
};
function down(n) { return down(n + 1) + 1; }
