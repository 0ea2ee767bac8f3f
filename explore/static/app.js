// heapconv explore: the page. A client of the JSON API (docs/api.md); it
// keeps only what is on screen. Routes live in the URL's fragment, so
// every view has an address:
//   #/h/H              the Summary of heap H (its classes)
//   #/h/H/o/N          object N of heap H
//   #/h/H/tree         the dominator tree of heap H
//   #/compare/A,B,…    the comparison of heaps A, B, …
//   #/h/H/search/TEXT  what TEXT finds in heap H
// Heap contents are never parsed as HTML: every text goes in by
// textContent.

const token = new URLSearchParams(location.search).get("token") || "";
const view = document.getElementById("view");
const heapSelect = document.getElementById("heap");
let heaps = [];

async function api(path) {
  const res = await fetch("/api/v1" + path, { headers: { Authorization: "Bearer " + token } });
  const body = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

// el makes an element: el("a", {href: "#"}, "text", child, …).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c == null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const fmt = new Intl.NumberFormat("en-US");
function bytes(n) {
  if (n < 1024) return fmt.format(n) + " B";
  const units = ["kB", "MB", "GB", "TB"];
  let v = n, u = -1;
  do { v /= 1024; u++; } while (v >= 1024 && u < units.length - 1);
  return v.toFixed(v < 10 ? 1 : 0) + " " + units[u];
}

function objectLink(h, o) {
  return el("a", { href: `#/h/${h}/o/${o.node}`, class: "object", title: `${o.class} ${o.ref}` },
    o.shown === o.class ? o.class : `${o.class} ${o.shown}`, " ", el("span", { class: "kind" }, o.ref));
}

function sizes(o) {
  return el("span", { class: "size" }, ` self ${bytes(o.self_size)} · retained ${bytes(o.retained_size)}`);
}

function showError(err) {
  view.replaceChildren(el("p", { class: "error" }, String(err.message || err)));
}

// more appends a "more" button that loads the next page into list.
function more(list, next, load) {
  if (!next) return;
  const b = el("button", { class: "more", onclick: async () => { b.remove(); await load(next); } }, "more…");
  list.append(el("li", {}, b));
}

// fillPages appends to list the items of the API's list at path, limit at
// a time, each as item makes it, with a "more" button for the next page;
// empty, if given, is what an empty list shows.
function fillPages(list, path, limit, item, empty) {
  const page = async (cursor) => {
    const res = await api(`${path}?limit=${limit}${cursor ? "&cursor=" + cursor : ""}`);
    for (const x of res.items) list.append(item(x));
    if (!res.items.length && !cursor && empty) list.append(el("li", { class: "note" }, empty));
    more(list, res.next, page);
  };
  return page("");
}

// expander returns a toggle that shows and hides sub, calling load the
// first time it opens.
function expander(sub, load) {
  const toggle = el("span", { class: "toggle" }, "▸");
  let loaded = false;
  toggle.addEventListener("click", () => {
    sub.hidden = !sub.hidden;
    toggle.textContent = sub.hidden ? "▸" : "▾";
    if (!loaded) { loaded = true; load(); }
  });
  return toggle;
}

// objectItem is an object as a list shows it: its link and sizes.
function objectItem(h, o) {
  return el("li", {}, objectLink(h, o), sizes(o));
}

// --- Summary ---

let summaryState = { sort: "retained", filter: "" };

async function summary(h) {
  const table = el("table", { id: "classes" });
  const filter = el("input", { class: "filter", type: "search", placeholder: "filter classes", value: summaryState.filter, "aria-label": "filter classes" });
  const count = el("p", { class: "note" });
  const kinds = el("details", { id: "kinds" }, el("summary", {}, "Statistics by kind"));
  const links = el("p", {}, el("a", { id: "tree-link", href: `#/h/${h}/tree` }, "Dominator tree"));
  view.replaceChildren(el("h1", {}, heaps[h].name), links, kinds, filter, count, table);
  api(`/heaps/${h}/kinds`).then((res) => {
    const ext = res.items.some((k) => k.external_size > 0);
    kinds.append(el("table", { class: "kinds" },
      el("thead", {}, el("tr", {}, el("th", {}, "Kind"), el("th", { class: "num" }, "Count"), el("th", { class: "num" }, "Self size"), ext ? el("th", { class: "num" }, "External size") : null)),
      el("tbody", {}, ...res.items.map((k) => el("tr", {}, el("td", {}, k.kind), el("td", { class: "num" }, fmt.format(k.count)),
        el("td", { class: "num" }, fmt.format(k.self_size)), ext ? el("td", { class: "num" }, fmt.format(k.external_size)) : null)))));
  }).catch(showError);
  let timer;
  filter.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => { summaryState.filter = filter.value; load(); }, 150);
  });
  const cols = [["Class", "name", ""], ["Count", "count", "num"], ["Self size", "self", "num"], ["Retained size", "retained", "num"]];
  async function load() {
    const q = `?sort=${summaryState.sort}&filter=${encodeURIComponent(summaryState.filter)}&limit=200`;
    const body = el("tbody");
    const head = el("tr", {}, ...cols.map(([label, key, cls]) =>
      el("th", { class: cls + (summaryState.sort === key ? " sorted" : ""), onclick: () => { summaryState.sort = key; load(); } }, label)));
    table.replaceChildren(el("thead", {}, head), body);
    async function page(cursor) {
      const res = await api(`/heaps/${h}/classes${q}${cursor ? "&cursor=" + cursor : ""}`);
      count.textContent = `${fmt.format(res.total)} classes`;
      for (const c of res.items) body.append(...classRows(h, c));
      if (res.next) {
        const b = el("button", { class: "more", onclick: () => { tr.remove(); page(res.next); } }, "more classes…");
        const tr = el("tr", {}, el("td", { colspan: 4 }, b));
        body.append(tr);
      }
    }
    await page("");
    // Tells a test driving the page that this filter's rows are in.
    table.dataset.filter = summaryState.filter;
  }
  await load();
}

// classRows returns a class's row and the row its instances open in.
function classRows(h, c) {
  const toggle = el("span", { class: "toggle" }, "▸");
  const inner = el("td", { colspan: 4 });
  const sub = el("tr", { class: "instances", hidden: "" }, inner);
  let loaded = false;
  const row = el("tr", { class: "class", "data-class": c.label },
    el("td", {}, toggle, el("a", { href: "#", onclick: (ev) => { ev.preventDefault(); flip(); } }, c.label)),
    el("td", { class: "num" }, fmt.format(c.count)),
    el("td", { class: "num" }, fmt.format(c.self_size)),
    el("td", { class: "num" }, fmt.format(c.retained_size)));
  toggle.addEventListener("click", flip);
  async function flip() {
    const open = sub.hidden;
    sub.hidden = !open;
    toggle.textContent = open ? "▾" : "▸";
    if (open && !loaded) {
      loaded = true;
      const list = el("ul", { class: "tree" });
      inner.replaceChildren(list);
      await fillPages(list, `/heaps/${h}/classes/${c.index}/objects`, 50, (o) => objectItem(h, o));
    }
  }
  return [row, sub];
}

// --- Object ---

async function object(h, n) {
  const o = await api(`/heaps/${h}/objects/${n}`);
  const facts = el("dl", { class: "facts" },
    el("dt", {}, "class"), el("dd", {}, o.class_index >= 0 ? el("a", { href: `#/h/${h}` }, o.class) : o.class),
    el("dt", {}, "kind"), el("dd", {}, o.kind),
    el("dt", {}, "id"), el("dd", {}, o.ref),
    el("dt", {}, "self size"), el("dd", {}, `${fmt.format(o.self_size)} bytes`),
    el("dt", {}, "retained size"), el("dd", {}, `${fmt.format(o.retained_size)} bytes`),
    el("dt", {}, "distance"), el("dd", {}, o.distance < 0 ? "unreachable" : fmt.format(o.distance)),
    el("dt", {}, "dominator"), el("dd", {}, o.dominator ? objectLink(h, o.dominator) : "none (a root)"));
  const parts = [el("h1", { id: "object-title" }, o.shown === o.class ? o.class : `${o.class} ${o.shown}`), facts];
  if (o.stack && o.stack.length) {
    parts.push(el("h2", {}, "Allocation stack"), el("ol", { class: "stack" },
      ...o.stack.map((f) => el("li", {}, f.name, f.file ? ` ${f.file}:${f.line}:${f.column}` : ""))));
  }
  const section = (title, id) => { const ul = el("ul", { class: "tree", id }); parts.push(el("h2", {}, title), ul); return ul; };
  const path = section("Retainer path from the roots", "path");
  const retainers = section(`Retainers (${fmt.format(o.retainers)}${o.weak_retainers ? `, and ${fmt.format(o.weak_retainers)} weak` : ""})`, "retainers");
  const fields = section(`Fields (${fmt.format(o.fields)})`, "fields");
  const chain = section("Dominators", "dominators");
  const dominated = section(`Keeps alive (${fmt.format(o.dominated)} objects it alone holds)`, "dominated");
  view.replaceChildren(...parts);

  fillPages(path, `/heaps/${h}/objects/${n}/path`, 200, (st) =>
    el("li", {}, st.edge ? el("span", { class: "edge" }, edgeLabel(st.edge), " in ") : "", objectLink(h, st)),
  "nothing reachable holds it").catch(showError);
  references(h, n, "retainers", retainers, (r) => r.object);
  references(h, n, "fields", fields, (r) => r.object);
  fillPages(chain, `/heaps/${h}/objects/${n}/dominators`, 200, (d) => objectItem(h, d)).catch(showError);
  fillPages(dominated, `/heaps/${h}/objects/${n}/dominated`, 50, (d) => objectItem(h, d)).catch(showError);
}

function edgeLabel(e) {
  return e.indexed ? `[${e.name}]` : e.kind === "internal" || e.kind === "hidden" ? `${e.kind} ${e.name}` : e.name;
}

// references fills list with an object's retainers or fields, each
// expandable into its own, one level at a time (a cycle stops where an
// object already open above it comes again).
function references(h, n, what, list, other, above = new Set([n])) {
  fillPages(list, `/heaps/${h}/objects/${n}/${what}`, 50, (r) => {
    const o = other(r);
    const sub = el("ul", { class: "tree", hidden: "" });
    const toggle = above.has(o.node)
      ? el("span", { class: "toggle", title: "already open above: a cycle" }, "↺")
      : expander(sub, () => references(h, o.node, what, sub, other, new Set([...above, o.node])));
    return el("li", { class: r.weak ? "weak" : "" }, toggle,
      el("span", { class: "edge" }, edgeLabel(r), what === "retainers" ? " in " : " → "),
      objectLink(h, o), sizes(o), r.weak ? " (weak)" : "", sub);
  }, "none").catch(showError);
}

// --- Search ---

async function search(h, q) {
  const res = await api(`/heaps/${h}/search?q=${encodeURIComponent(q)}&limit=50`);
  const parts = [el("h1", {}, `“${q}” in ${heaps[h].name}`)];
  if (res.objects.length) parts.push(el("h2", {}, "Objects"), el("ul", { class: "tree" }, ...res.objects.map((o) => objectItem(h, o))));
  if (res.classes.length) {
    const body = el("tbody");
    for (const c of res.classes) body.append(...classRows(h, c));
    parts.push(el("h2", {}, "Classes"), el("table", {}, body));
  }
  if (res.strings.length) parts.push(el("h2", {}, "Strings"), el("ul", { class: "tree" }, ...res.strings.map((o) => objectItem(h, o))));
  if (parts.length === 1) parts.push(el("p", { class: "note" }, "Nothing found."));
  view.replaceChildren(...parts);
}

// --- Dominator tree ---

// tree shows the dominator tree from its top, each object expandable into
// what it alone keeps alive, the largest first.
async function tree(h) {
  const top = el("ul", { class: "tree", id: "dominator-tree" });
  view.replaceChildren(el("h1", {}, `Dominator tree of ${heaps[h].name}`),
    el("p", { class: "note" }, "Each object keeps alive what is below it: open one to see what it alone holds."), top);
  const fill = (list, path) => fillPages(list, path, 50, (o) => {
    const sub = el("ul", { class: "tree", hidden: "" });
    return el("li", {}, expander(sub, () => fill(sub, `/heaps/${h}/objects/${o.node}/dominated`)), objectLink(h, o), sizes(o), sub);
  }, "nothing").catch(showError);
  fill(top, `/heaps/${h}/dominator-tree`);
}

// --- Comparison ---

function signed(n) { return (n > 0 ? "+" : n < 0 ? "−" : "") + fmt.format(Math.abs(n)); }

async function compare(list) {
  const q = `/compare?heaps=${list.join(",")}&limit=100`;
  view.replaceChildren(el("p", { class: "note" }, "Comparing… (each heap's classes are counted again)"));
  const c = await api(q);
  const last = c.last;
  const names = c.heaps.map((h) => heaps[h].name);
  const parts = [el("h1", {}, "Comparison: " + names.join(" → "))];
  parts.push(el("h2", {}, c.suspects_by === "growth" ? "Leak suspects (by growth under the same holders)" : "Leak suspects"));
  const suspects = el("ol", { id: "suspects" });
  for (const sp of c.suspects) {
    const holder = sp.holder.node >= 0 ? objectLink(last, sp.holder) : "the roots";
    const li = el("li", { class: "suspect" },
      el("div", {}, holder, el("span", { class: "size" }, ` holds ${fmt.format(sp.count)} leaked objects, ${bytes(sp.retained_size)} retained (${(sp.share * 100).toFixed(1)} % of the leaked memory)`)),
      el("ul", { class: "tree suspect-classes" }, ...sp.classes.map((g) =>
        el("li", {}, `${g.class}${g.name ? " " + g.name : ""}: ${fmt.format(g.count)} objects, ${bytes(g.self_size)}`))),
      el("ol", { class: "tree path" }, ...sp.path.map((st) =>
        el("li", {}, st.edge ? el("span", { class: "edge" }, edgeLabel(st.edge), " in ") : "", objectLink(last, st)))));
    suspects.append(li);
  }
  if (!c.suspects.length) suspects.append(el("li", { class: "note" }, "No leak suspects: nothing new in the last step is still alive, or nothing grew."));
  parts.push(suspects);

  parts.push(el("h2", {}, "Classes, by growth of their self size"));
  const body = el("tbody");
  const n = c.heaps.length;
  const table = el("table", { id: "changes" }, el("thead", {}, el("tr", {},
    el("th", {}, "Class"), el("th", { class: "num" }, "Count"), el("th", { class: "num" }, "Change"),
    el("th", { class: "num" }, "Self size"), el("th", { class: "num" }, "Change"),
    el("th", { class: "num" }, "Retained size"), el("th", { class: "num" }, "Change"))), body);
  const label = (r) => r.location ? `${r.name} at script ${r.location.script_id} line ${r.location.line + 1} column ${r.location.column + 1}` : r.name;
  const addRows = (page) => {
    for (const r of page.items) {
      const ret = r.retained_size || [];
      body.append(el("tr", {}, el("td", {}, label(r)),
        el("td", { class: "num" }, fmt.format(r.count[n - 1])), el("td", { class: "num" }, signed(r.count[n - 1] - r.count[0])),
        el("td", { class: "num" }, fmt.format(r.self_size[n - 1])), el("td", { class: "num" }, signed(r.self_size[n - 1] - r.self_size[0])),
        el("td", { class: "num" }, ret.length ? fmt.format(ret[n - 1]) : ""), el("td", { class: "num" }, ret.length ? signed(ret[n - 1] - ret[0]) : "")));
    }
    if (page.next) {
      const b = el("button", { class: "more", onclick: async () => { tr.remove(); addRows((await api(q + "&cursor=" + page.next)).classes); } }, "more classes…");
      const tr = el("tr", {}, el("td", { colspan: 7 }, b));
      body.append(tr);
    }
  };
  addRows(c.classes);
  parts.push(table);
  const groups = (title, list) => {
    if (!list.length) return;
    parts.push(el("h2", {}, title), el("ul", { class: "tree" }, ...list.slice(0, 50).map((g) =>
      el("li", {}, `${g.class}: ${fmt.format(g.count)} objects, ${bytes(g.self_size)}`))));
  };
  if (c.step.length === 3) groups(`Leaked: new in ${heaps[c.step[1]].name}, still alive in ${heaps[c.step[2]].name}`, c.leaked);
  groups(`New in ${heaps[c.step[1]].name}`, c.new);
  view.replaceChildren(...parts);
}

// --- Routing ---

async function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  let h = 0;
  try {
    if (parts[0] === "h") {
      h = Number(parts[1]);
      if (!(h >= 0 && h < heaps.length)) throw new Error(`no heap ${parts[1]}`);
    }
    heapSelect.value = String(h);
    if (parts[0] === "compare") { await compare(parts[1].split(",").map(Number)); return; }
    if (parts[2] === "o") await object(h, Number(parts[3]));
    else if (parts[2] === "tree") await tree(h);
    else if (parts[2] === "search") await search(h, decodeURIComponent(parts.slice(3).join("/")));
    else await summary(h);
  } catch (err) {
    showError(err);
  }
}

async function start() {
  try {
    heaps = (await api("/heaps")).heaps;
  } catch (err) {
    showError(err);
    return;
  }
  for (const hp of heaps) heapSelect.append(el("option", { value: String(hp.index) }, `${hp.name} (${hp.format}, ${fmt.format(hp.objects)} objects, ${bytes(hp.self_size)})`));
  heapSelect.addEventListener("change", () => { location.hash = `#/h/${heapSelect.value}`; });
  if (heaps.length > 1) {
    document.querySelector("header form").before(el("a", { id: "compare", href: `#/compare/${heaps.map((hp) => hp.index).join(",")}` }, "Compare"));
  }
  document.getElementById("search").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = document.getElementById("q").value.trim();
    if (q) location.hash = `#/h/${heapSelect.value || 0}/search/${encodeURIComponent(q)}`;
  });
  window.addEventListener("hashchange", route);
  route();
}

start();
