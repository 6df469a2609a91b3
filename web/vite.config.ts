import { defineConfig } from "vite";

// The bundle is served by the Python service at /ui and committed inside the package (houndgraph/ui/static).
export default defineConfig({
  base: "/ui/",
  build: {
    outDir: "../houndgraph/ui/static",
    emptyOutDir: true,
    assetsDir: "assets",
    // Assets stay files: the CSP allows data: only for images, and hashed files cache forever.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
    // bench.html: the graph drawing benchmark page that bench/ui_graph.py opens.
    rollupOptions: { input: { main: "index.html", bench: "bench.html" } },
  },
  // The graph layout worker is a module of its own, served from this origin (the CSP allows no blob: worker).
  worker: { format: "es" },
});
