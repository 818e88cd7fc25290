// MathJax 3 for the pages (pymdownx.arithmatex, generic mode: \( \) and \[ \])
// and for the notebooks' Markdown cells ($ $ and $$ $$). Code and pre blocks
// are skipped, so a $ in a shell command stays as it is.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
    processEnvironments: true
  }
};
document$.subscribe(() => { if (window.MathJax && MathJax.typesetPromise) { MathJax.typesetPromise(); } });
