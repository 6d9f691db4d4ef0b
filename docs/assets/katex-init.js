// Typeset the maths of a page with the local KaTeX (docs/assets/katex, fetched at build time):
// pymdownx.arithmatex writes \( … \) inline and \[ … \] displayed.
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "\\[", right: "\\]", display: true },
      { left: "\\(", right: "\\)", display: false },
    ],
  });
});
