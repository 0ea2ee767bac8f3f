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
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">{{if .Name}}{{.Name}} · {{end}}{{.Format}}{{if .Variant}} ({{text .Variant}}){{end}}{{if .Snapshots}} · the last of {{.Snapshots}} snapshots{{end}}</p>
<p class="figures"><span>{{.Summary.Nodes}} objects</span><span>{{.Summary.Edges}} references</span><span>{{human .Summary.SelfSize}} self size</span>{{if .Summary.ExternalSize}}<span>{{human .Summary.ExternalSize}} external</span>{{end}}<span>{{.Classes}} classes</span></p>

{{if .Chart}}<section id="growth-section">
<h2>Growth per class over the snapshots</h2>
<p class="note">Self size of the classes that grew most from the first snapshot to the last.</p>
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

<section id="treemap-section">
<h2>Retained size over the dominator tree</h2>
<p class="note">Each rectangle is the objects of one class that the rectangle around it (the root, outermost) dominates; side by side, rectangles are sized by what they retain, and inside one, grouped by class again, is what its objects dominate (scaled to fill it, below its label). Hover for figures.</p>
{{.Treemap}}
</section>

<section id="paths-section">
<h2>What keeps the largest alive</h2>
{{range .Paths}}<h3>{{.Class}}</h3>
{{if .Steps}}<ol class="path">{{range .Steps}}<li>{{text .Class}} {{.Ref}} <span class="note">self {{human .SelfSize}}, retained {{human .Retained}}</span>{{with .Edge}} <span class="edge">—{{.Kind}} {{if .Indexed}}[{{.Name}}]{{else}}{{text .Name}}{{end}}→</span>{{end}}</li>
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
  document.body.setAttribute('data-ready', '1');
})();
</script>
</body>
</html>
`
