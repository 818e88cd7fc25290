"""MkDocs hooks for a site that works offline and under any base URL.

MathJax 3 is served with the site, so that every equation renders offline
(no CDN).  And 404.html, which a server sends for a missing page at any
depth, finds the site's root when it loads (the longest prefix of its URL
that holds search/search_index.json) and takes its links and assets from
there, in place of MkDocs' links from "/" (right only at a server's root).

The files come from the PyPI package django-static-mathjax (a copy of
MathJax 3's es5 build; its Python part, for Django, is not used), which the
`docs` extra installs: the component `tex-mml-chtml.js` that the pages load
(mkdocs.yml, extra_javascript), the CommonHTML fonts it fetches and the TeX
extensions it may autoload, all relative to the script's own URL.  A build
without the package fails under `mkdocs build --strict` with a warning that
says how to install it.
"""
import importlib.util
import logging
import os
import re

from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.mathjax")

SITE_FOLDER = "javascripts/mathjax"
PARTS = ("tex-mml-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions", "ui", "a11y")


def _es5():
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.join(list(spec.submodule_search_locations)[0], "static", "mathjax", "es5")
    return folder if os.path.isfile(os.path.join(folder, "tex-mml-chtml.js")) else None


def on_files(files, config):
    es5 = _es5()
    if es5 is None:
        log.warning("MathJax is not installed: the equations would not render. Install the docs extra: "
                    'pip install ".[docs]" (it holds django-static-mathjax, MathJax 3 for serving with the site)')
        return files
    for part in PARTS:
        path = os.path.join(es5, part)
        names = [path] if os.path.isfile(path) else [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]
        for name in sorted(names):
            relative = os.path.relpath(name, es5)
            files.append(File.generated(config, f"{SITE_FOLDER}/{relative}", abs_src_path=name))
    return files


_FIND_ROOT = """<script>
(function () {  /* docs/site_hooks.py: the site's root, where its search index is */
  var parts = location.pathname.split("/");
  for (var n = parts.length - 1; n >= 1; n--) {
    var root = parts.slice(0, n).join("/") + "/", probe = new XMLHttpRequest();
    try { probe.open("HEAD", root + "search/search_index.json", false); probe.send(); } catch (e) { continue; }
    if (probe.status === 200) { document.write('<base href="' + root + '">'); return; }
  }
})();
</script>"""

_FIX_CONFIG = """<script>
(function () {  /* Material's base and search worker, from the root found above */
  var element = document.getElementById("__config"), config = JSON.parse(element.textContent);
  config.base = document.baseURI;
  config.search = new URL(config.search, document.baseURI).href;
  element.textContent = JSON.stringify(config);
})();
</script>"""


def on_post_build(config):
    path = os.path.join(config["site_dir"], "404.html")
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        page = f.read()
    page = re.sub(r'((?:href|src)=")/(?!/)', r"\1", page)  # root-relative links: relative to the <base>
    page = page.replace('"search": "/', '"search": "')
    page = page.replace("<head>", "<head>\n" + _FIND_ROOT, 1)
    config_end = page.index("</script>", page.index('id="__config"')) + len("</script>")
    page = page[:config_end] + "\n" + _FIX_CONFIG + page[config_end:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
