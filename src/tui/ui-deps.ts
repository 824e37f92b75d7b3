// What the UI's modules (src/tui/) import from Ink and React, made ready before they are evaluated
// (src/cli/tui.ts' importUi). From the sources, and in the library, Node loads both as each module
// imports them: there is nothing to do. The CLI's bundle is CommonJS, for V8's code cache
// (scripts/build-cli.mjs), and Ink's layout engine uses top-level await, which CommonJS cannot
// hold: the bundle has Ink and React in an ES module of their own and replaces this module with
// src/tui/ui-deps-bundled.ts, which imports it here.
export async function loadUiDependencies(): Promise<void> {}
