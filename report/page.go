package report

// pageHTML is the report's page. It loads nothing: style, script and
// pictures are inline, so the file opens anywhere, offline.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="heapconv">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.meta { color: #555; }
.figures span { display: inline-block; margin-right: 18px; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; white-space: normal; word-break: break-all; }
th { cursor: pointer; user-select: none; background: #f6f6f6; position: sticky; top: 0; }
th[aria-sort="ascending"]::after { content: " ▲"; }
th[aria-sort="descending"]::after { content: " ▼"; }
.scroll { max-height: 480px; overflow: auto; border: 1px solid #ddd; }
.note { color: #666; }
ol.path { font-family: ui-monospace, monospace; font-size: 12px; padding-left: 24px; }
ol.path .edge { color: #a33; }
svg text { font-family: system-ui, sans-serif; pointer-events: none; }
#treemap g.open rect { cursor: zoom-in; }
#treemap g.cell:focus { outline: none; }
#treemap g.cell:focus > rect { stroke: #222; }
#treemap-crumbs { margin: 4px 0; }
#treemap-crumbs button { font: inherit; border: 1px solid #ccc; background: #f6f6f6; border-radius: 3px; padding: 1px 6px; cursor: pointer; }
#treemap-crumbs .sep { color: #999; margin: 0 4px; }
#treemap-crumbs [aria-current] { font-weight: 600; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">{{if .Name}}{{.Name}} · {{end}}{{.Format}}{{if .Variant}} ({{text .Variant}}){{end}}{{if .Snapshots}} · the last of {{.Snapshots}} snapshots{{end}}</p>
<p class="figures"><span>{{.Summary.Nodes}} objects</span><span>{{.Summary.Edges}} references</span><span>{{human .Summary.SelfSize}} self size</span>{{if .Summary.ExternalSize}}<span>{{human .Summary.ExternalSize}} external</span>{{end}}<span>{{.Classes}} classes</span></p>

{{if .Chart}}<section id="growth-section">
<h2>Growth per class over the snapshots</h2>
<p class="note">How much the self size of each class changed since the first snapshot (a class the first snapshot lacks counts from 0 there), for the classes that grew most from the first to the last and those that grew at every step (marked ↗). Hover a point for its figures.</p>
{{.Chart}}
</section>{{end}}

<section id="summary-section">
<h2>Classes</h2>
<p class="note">Click a column to sort. Retained size: the memory a class's objects keep alive (from the dominator tree; a class's objects held by others of the class count once).{{if gt .Classes (len .Rows)}} The {{len .Rows}} classes that retain the most of {{.Classes}}.{{end}}</p>
<div class="scroll">
<table id="summary">
<thead><tr><th data-type="text">Class</th><th data-type="num">Count</th><th data-type="num">Self size</th><th data-type="num" aria-sort="descending">Retained size</th></tr></thead>
<tbody>
{{range .Rows}}<tr><td>{{.Name}}</td><td data-v="{{.Count}}">{{.Count}}</td><td data-v="{{.Self}}">{{human .Self}}</td><td data-v="{{.Retained}}">{{human .Retained}}</td></tr>
{{end}}</tbody>
</table>
</div>
</section>

{{with .Leaks}}<section id="leaks-section">
<h2>{{if .Single}}Biggest holders{{else}}Leak suspects{{end}}</h2>
<p class="note">{{.About}}</p>
{{if not .Suspects}}<p>None.</p>{{end}}
<ol class="suspects">{{range .Suspects}}<li class="suspect">
<h3>{{.Holder.Holder 120}}: {{if $.Leaks.Growth}}+{{end}}{{.Count}} objects, {{if $.Leaks.Growth}}+{{end}}{{human .Retained}} retained ({{.Percent}}{{if $.Leaks.Single}} of the heap{{else if $.Leaks.Growth}} of the growth{{else}} of the leaked memory{{end}})</h3>
{{if gt .Holders 1}}<p class="note">And {{.Holders}} objects held the same way in all.</p>{{end}}
<ul class="suspect-classes">{{range .Classes}}<li>{{if $.Leaks.Growth}}+{{end}}{{.}}</li>{{end}}{{if .More}}<li>{{.More}} more classes</li>{{end}}</ul>
{{if .Path}}<ol class="path">{{range .Path}}<li>{{with .Edge}}<span class="edge">{{text .Label}}</span> in {{end}}{{.Holder 160}} <span class="note">{{with .Edge}}{{.Kind}}; {{end}}self {{human .SelfSize}}, retained {{human .Retained}}</span></li>
{{end}}</ol>{{end}}
</li>{{end}}</ol>
{{if .Noise}}<p class="note">{{.Noise}} objects of engine noise (compiled code and the like) left out.</p>{{end}}
</section>
{{end}}
<section id="treemap-section">
<h2>Retained size over the dominator tree</h2>
{{if .Treemap}}<p class="note">Each rectangle is sized by the memory it retains: at the top, the objects the root dominates, grouped by class; inside a class, its objects one by one (with their references, for <code>heapconv paths --id</code>); inside an object, what it dominates, grouped by class again. Click a rectangle (or Tab to it and press Enter) to zoom into it, and the path above the map to go back up (or press Escape). Hover for figures. The page keeps the largest part of the tree: at most {{.TreemapChildren}} rectangles in each, the rest as one "other", and {{.TreemapNodes}} in all.</p>
<nav id="treemap-crumbs" aria-label="treemap level"></nav>
<p id="treemap-info" class="note"></p>
<svg id="treemap" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1160 560" width="1160" height="560" role="img" aria-label="treemap of retained size"></svg>
<noscript><p class="note">The treemap is drawn by the page's script.</p></noscript>
<script type="application/json" id="treemap-data">{{.Treemap}}</script>
{{else}}<p class="note">{{.TreemapNote}}</p>{{end}}
</section>

<section id="paths-section">
<h2>What keeps the largest alive</h2>
<p class="note">The shortest path from the roots to the object of each class that retains the most. Each step reads as a row of Chrome DevTools' Retainers view: the reference by which an object holds the next, in that object (its class, the name it is shown by, its reference), and the reference's kind.</p>
{{range .Paths}}<h3>{{.Class}}</h3>
{{if .Steps}}<ol class="path">{{range .Steps}}<li>{{with .Edge}}<span class="edge">{{text .Label}}</span> in {{end}}{{.Holder 160}} <span class="note">{{with .Edge}}{{.Kind}}; {{end}}self {{human .SelfSize}}, retained {{human .Retained}}</span></li>
{{end}}</ol>{{else}}<p class="note">Nothing reachable from the roots holds it.</p>{{end}}
{{end}}
</section>

<script>
(function () {
  var table = document.getElementById('summary');
  var heads = table.tHead.rows[0].cells;
  function key(row, i, num) {
    var c = row.cells[i];
    return num ? Number(c.getAttribute('data-v')) : c.textContent;
  }
  function sortBy(i) {
    var th = heads[i], num = th.getAttribute('data-type') === 'num';
    var desc = th.getAttribute('aria-sort') !== 'descending';
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, i, num), y = key(b, i, num);
      var r = num ? x - y : x.localeCompare(y);
      return desc ? -r : r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    for (var k = 0; k < heads.length; k++) heads[k].removeAttribute('aria-sort');
    th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
  }
  for (var i = 0; i < heads.length; i++) {
    heads[i].addEventListener('click', sortBy.bind(null, i));
  }
  // The growth chart's snapshot labels: the page thinned them already;
  // hide any that still overlaps the one before it (fonts differ).
  var shown = null;
  Array.prototype.forEach.call(document.querySelectorAll('#growth text.xlabel'), function (t) {
    var b = t.getBBox();
    if (shown && b.x < shown.x + shown.width + 4) {
      t.setAttribute('visibility', 'hidden');
      return;
    }
    shown = b;
  });
  treemap();
  document.body.setAttribute('data-ready', '1');
})();
function treemap() {
  var holder = document.getElementById('treemap-data');
  if (!holder) return;
  var data = JSON.parse(holder.textContent);
  // A node: [name, retained, self, count, ref, kind, parent, state].
  // Kinds: 0 root, 1 class group, 2 object, 3 other; states: 0 nothing
  // below, 1 children here, 2 children left out by the page's bound.
  var N = data.nodes, names = data.names;
  var kids = N.map(function () { return []; });
  N.forEach(function (n, i) { if (n[6] >= 0) kids[n[6]].push(i); });
  var svg = document.getElementById('treemap');
  var crumbs = document.getElementById('treemap-crumbs');
  var info = document.getElementById('treemap-info');
  var SVG = svg.namespaceURI, W = 1160, H = 560, deepest = 2;
  var current = 0;

  function human(b) {
    var units = [[1073741824, 'GiB'], [1048576, 'MiB'], [1024, 'KiB']];
    for (var k = 0; k < units.length; k++) {
      if (b >= units[k][0]) return (b / units[k][0]).toFixed(1) + ' ' + units[k][1];
    }
    return b + ' B';
  }
  function objects(n) { return n === 1 ? '1 object' : n + ' objects'; }
  function name(i) { return names[N[i][0]]; }
  function hue(s) {
    var h = 2166136261;
    for (var k = 0; k < s.length; k++) { h ^= s.charCodeAt(k); h = Math.imul(h, 16777619) >>> 0; }
    return h % 360;
  }
  function fill(i, depth) {
    if (N[i][5] === 3) return 'hsl(0,0%,' + (86 - 6 * depth) + '%)';
    return 'hsl(' + hue(name(i)) + ',55%,' + (80 - 10 * depth) + '%)';
  }
  function label(i) {
    var n = N[i];
    switch (n[5]) {
      case 0: return 'root' + (n[4] ? ' ' + name(i) + ' ' + n[4] : '');
      case 1: return name(i) + ' ×' + n[3];
      case 2: return name(i) + ' ' + n[4];
    }
    return '(other: ' + objects(n[3]) + ')';
  }
  function tip(i) {
    var n = N[i], s;
    switch (n[5]) {
      case 2: s = name(i) + ' ' + n[4] + ': self ' + human(n[2]) + ', retains ' + human(n[1]); break;
      case 3: s = 'other, smaller: ' + human(n[1]) + ' retained by ' + objects(n[3]); break;
      default: s = name(i) + ': ' + human(n[1]) + ' retained by ' + objects(n[3]);
    }
    if (n[7] === 2) s += ' (what it dominates is left out: the page keeps the largest part of the tree)';
    return s;
  }
  function cut(s, k) { return s.length <= k ? s : s.slice(0, Math.max(k - 1, 1)) + '…'; }
  function el(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    parent.appendChild(e);
    return e;
  }
  // squarify lays sizes (largest first) out in the rectangle x, y, w, h
  // as rectangles of proportional area, as square as can be: rows along
  // the shorter side, each grown while its worst aspect ratio improves.
  function squarify(sizes, x, y, w, h) {
    var out = [], total = 0;
    sizes.forEach(function (s) { total += s; });
    var scale = w * h / total, i = 0;
    function worst(sum, lo, hi, short) {
      var side = sum * scale / short, r = 0;
      for (var k = lo; k < hi; k++) {
        var other = sizes[k] * scale / side;
        r = Math.max(r, side / other, other / side);
      }
      return r;
    }
    while (i < sizes.length) {
      var short = Math.min(w, h), sum = 0, j = i;
      while (j < sizes.length) {
        var next = sum + sizes[j];
        if (j > i && worst(next, i, j + 1, short) > worst(sum, i, j, short)) break;
        sum = next;
        j++;
      }
      var side = sum * scale / short, pos = 0;
      for (var k = i; k < j; k++) {
        var len = sizes[k] * scale / side;
        out[k] = w >= h ? [x, y + pos, side, len] : [x + pos, y, len, side];
        pos += len;
      }
      if (w >= h) { x += side; w -= side; } else { y += side; h -= side; }
      i = j;
    }
    return out;
  }
  function draw(list, x, y, w, h, depth, top) {
    list = list.filter(function (i) { return N[i][1] > 0; });
    list.sort(function (a, b) { return N[b][1] - N[a][1]; });
    if (list.length === 0 || w < 2 || h < 2) return;
    var rects = squarify(list.map(function (i) { return N[i][1]; }), x, y, w, h);
    list.forEach(function (i, k) {
      var r = rects[k], open = N[i][7] === 1, outer = depth === 0 ? i : top;
      var g = el('g', { 'class': 'cell' + (N[outer][7] === 1 ? ' open' : ''), 'data-node': i, 'data-top': outer, 'data-depth': depth, 'data-size': N[i][1], 'data-kind': N[i][5] }, svg);
      el('title', {}, g).textContent = tip(i);
      if (depth === 0 && open) {
        g.setAttribute('tabindex', '0');
        g.setAttribute('role', 'button');
        g.setAttribute('aria-label', 'zoom into ' + label(i));
      }
      el('rect', { x: r[0].toFixed(1), y: r[1].toFixed(1), width: Math.max(r[2], 0).toFixed(1), height: Math.max(r[3], 0).toFixed(1),
        fill: fill(i, depth), stroke: '#fff', 'stroke-width': 3 - depth }, g);
      if (r[2] > 60 && r[3] > 16) {
        el('text', { x: (r[0] + 3).toFixed(1), y: (r[1] + 12).toFixed(1), 'font-size': 11 }, g).textContent = cut(label(i), Math.floor(r[2] / 7));
      }
      if (open && depth < deepest && r[2] > 30 && r[3] > 40) {
        draw(kids[i], r[0] + 3, r[1] + 16, r[2] - 6, r[3] - 19, depth + 1, outer);
      }
    });
  }
  function describe(i) {
    var n = N[i], s;
    switch (n[5]) {
      case 0: s = 'The root retains ' + human(n[1]) + '.'; break;
      case 1: s = objects(n[3]) + ' of ' + name(i) + ' retain ' + human(n[1]) + '.'; break;
      default: s = name(i) + ' ' + n[4] + ': self ' + human(n[2]) + ', retains ' + human(n[1]) + '.';
    }
    if (kids[i].length === 0) s += ' It dominates nothing the page shows.';
    return s;
  }
  function show(i) {
    current = i;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    draw(kids[i], 0, 0, W, H, 0, -1);
    svg.setAttribute('data-current', i);
    var path = [];
    for (var k = i; k >= 0; k = N[k][6]) path.unshift(k);
    crumbs.textContent = '';
    path.forEach(function (k, d) {
      if (d > 0) {
        var sep = document.createElement('span');
        sep.className = 'sep';
        sep.textContent = '›';
        crumbs.appendChild(sep);
      }
      var b;
      if (k === i) {
        b = document.createElement('span');
        b.setAttribute('aria-current', 'location');
      } else {
        b = document.createElement('button');
        b.type = 'button';
        b.addEventListener('click', function () { show(k); });
      }
      b.setAttribute('data-node', k);
      b.textContent = cut(k === 0 ? 'root' : label(k), 48);
      crumbs.appendChild(b);
    });
    info.textContent = describe(i);
  }
  svg.addEventListener('keydown', function (e) {
    var g = e.target.closest && e.target.closest('g.cell');
    if (g && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      show(Number(g.getAttribute('data-top')));
      var first = svg.querySelector('g.cell[tabindex]');
      if (first) first.focus();
    }
  });
  svg.addEventListener('click', function (e) {
    var g = e.target.closest && e.target.closest('g.cell');
    if (!g) return;
    // A click anywhere in one of the level's rectangles (on the smaller
    // ones inside it too) zooms into it, one level at a time.
    var i = Number(g.getAttribute('data-top'));
    if (N[i][7] === 1) show(i);
    else info.textContent = tip(i) + '.';
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && N[current][6] >= 0) show(N[current][6]);
  });
  show(0);
}
</script>
</body>
</html>
`
