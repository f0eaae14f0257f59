// The one line the README gives for Vite 6 and 7 dev servers in layouts where the package is not
// in the project's own node_modules (see the README's Vite section).
export default { optimizeDeps: { exclude: ["tiered-compaction"] } };
