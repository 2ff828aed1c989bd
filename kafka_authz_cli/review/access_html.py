"""The HTML report of ``authz access``: one self-contained file holding a principal x resource matrix.

``render(doc)`` takes the JSON document of ``authz access --format json`` (the shape in
``review.access``: ``access`` entries with principal, host, operation, implied, via and except) and
returns the page. Everything the page needs is inline: the data as one JSON block, the style and one
script. A Content-Security-Policy allows nothing but that script (by its hash) and inline style, so
the page makes no request and nothing injected through a name could run even if it got into the
markup; it does not get there: the script writes every name with ``textContent``, and the few names
the page shows without the script are escaped here.

Sized for 1,000 principals x 1,000 resources: the entries are packed as integers into string tables
(a name is written once however many entries name it), and the script draws one page of the matrix
at a time (rows and columns are paged; filtering is one pass over the entries).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterable

from kafka_authz_cli.acl import AclOperation

#: The integers one entry packs into, in this order (the script reads them by these positions).
ENTRY_FIELDS = ("principal", "resource", "operation", "host", "implied", "via", "except")

REASON_LABELS = {
    "acl": "ALLOW ACL",
    "super_user": "super user",
    "wildcard_principal": "ACL for User:*",
    "prefixed": "prefixed ACL",
    "wildcard_resource": "ACL on the wildcard resource",
    "default_allow": "allow.everyone.if.no.acl.found (no ACL on the resource)",
}

_OPERATION_ORDER = {name: i for i, name in enumerate(AclOperation.__members__)}


def render(doc: dict, title: str | None = None) -> str:
    """The page for ``doc`` (the ``authz access`` JSON document)."""
    data = pack(doc)
    payload = _json_in_html(data)
    script = _SCRIPT
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:"
    title = title or _default_title(doc.get("query") or {})
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_text(title)}</title><style>{_STYLE}</style></head><body>\n"
            f"<h1>{_text(title)}</h1>\n{_summary(doc, data)}\n{_CONTROLS}\n"
            f'<script type="application/json" id="data">{payload}</script>\n'
            f"<script>{script}</script>\n</body></html>\n")


def pack(doc: dict) -> dict:
    """The page's data: string tables and the entries as integers (``ENTRY_FIELDS`` per entry),
    sorted by principal then resource so that each row is one contiguous run (``row_start``)."""
    access = list(doc.get("access") or [])
    principals = sorted({str(e.get("principal", "")) for e in access}, key=_principal_key)
    resources = sorted({_resource(e) for e in access})
    operations = sorted({str(e.get("operation", "")) for e in access},
                        key=lambda o: (_OPERATION_ORDER.get(o, len(_OPERATION_ORDER)), o))
    p_index = {p: i for i, p in enumerate(principals)}
    r_index = {r: i for i, r in enumerate(resources)}
    o_index = {o: i for i, o in enumerate(operations)}
    hosts, vias, excepts = _Table(), _Table(), _Table()
    rows = []
    for e in access:
        rows.append((p_index[str(e.get("principal", ""))], r_index[_resource(e)], o_index[str(e.get("operation", ""))],
                     hosts.add(str(e.get("host", "*"))), 1 if e.get("implied") else 0,
                     vias.add(_via(e.get("via") or {})), excepts.add(_except(e.get("except") or []))))
    rows.sort()
    row_start = [0] * (len(principals) + 1)
    for row in rows:
        row_start[row[0] + 1] += 1
    for i in range(len(principals)):
        row_start[i + 1] += row_start[i]
    return {"principals": principals, "resources": [list(r) for r in resources], "operations": operations,
            "hosts": hosts.items, "vias": vias.items, "excepts": excepts.items, "reasons": REASON_LABELS,
            "entries": [v for row in rows for v in row], "row_start": row_start,
            # One principal's access (`authz access --principal`) reads down a column of its resources.
            "swap": bool((doc.get("query") or {}).get("principal"))}


class _Table:
    """Values interned as their first index (tuples and strings)."""

    def __init__(self):
        self.items: list = []
        self._index: dict = {}

    def add(self, value) -> int:
        i = self._index.get(value)
        if i is None:
            i = self._index[value] = len(self.items)
            self.items.append(value)
        return i


#: The name ``review``'s face exports (``render`` is the name the CLI calls).
render_access_html = render


def _principal_key(principal: str) -> tuple:
    # Everyone first (User:*), then by principal type and name.
    return (principal != "User:*", principal)


def _resource(entry: dict) -> tuple[str, str]:
    return (str(entry.get("resource_type", "")), str(entry.get("resource_name", "")))


def _via(via: dict) -> tuple:
    acl = via.get("acl")
    return (str(via.get("reason", "")), acl_text(acl) if acl else "", str(via.get("origin") or ""))


def _except(pairs: Iterable[dict]) -> tuple:
    return tuple((str(p.get("principal", "")), str(p.get("host", "*"))) for p in pairs)


def acl_text(acl: dict) -> str:
    """One line for an ACL binding (``AclBinding.as_dict``): ``ALLOW User:a READ TOPIC:LITERAL:orders from *``."""
    return (f"{acl.get('permission', '?')} {acl.get('principal', '?')} {acl.get('operation', '?')} "
            f"{acl.get('resource_type', '?')}:{acl.get('pattern_type', '?')}:{acl.get('resource_name', '?')} "
            f"from {acl.get('host', '*')}")


def _json_in_html(data: dict) -> str:
    # ASCII-only JSON (a lone surrogate from a mis-decoded name cannot break the file's encoding), with
    # every '<', '>' and '&' as a \u escape: no "</script>" or "<!--" can end the block early.
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _text(value) -> str:
    """Escaped for HTML text and attributes, with a name that cannot be encoded (a lone surrogate)
    shown with U+FFFD rather than failing to write the file."""
    value = str(value).encode("utf-8", "replace").decode("utf-8")
    return html.escape(value, quote=True)


def _default_title(query: dict) -> str:
    if query.get("principal"):
        return f"Access of {query['principal']}"
    name = query.get("resource_name")
    if name is None:
        return "Access review"
    what = {"prefix": "names starting with ", "names": "names listed in "}.get(query.get("pattern") or "", "")
    return f"Who can access {query.get('resource_type', '')} {what}{name}"


def _summary(doc: dict, data: dict) -> str:
    query = doc.get("query") or {}
    settings = query.get("settings") or {}
    supers = settings.get("super_users") or []
    parts = [f"{len(doc.get('access') or []):,} grants (one per principal, host, operation and resource)",
             f"{len(data['principals']):,} principals",
             _resources_said(_count(doc.get('resources'), len(data['resources'])), len(data['resources']))]
    broker = (f"super users: {', '.join(map(str, supers)) if supers else 'none'}; "
              f"allow.everyone.if.no.acl.found={'true' if settings.get('allow_everyone_if_no_acl_found') else 'false'}")
    return (f'<p id="summary">{_text(" · ".join(parts))}.</p>'
            f'<p class="broker">Broker settings: {_text(broker)}.</p>'
            '<noscript><p class="warn">This report draws its matrix with JavaScript; '
            "the data is in the JSON block of this file.</p></noscript>")


def _resources_said(reviewed: int, shown: int) -> str:
    """The resources the matrix shows, and those reviewed that no one may access (no column)."""
    more = f" (and {reviewed - shown:,} that no one may access)" if reviewed > shown else ""
    return f"{shown:,} resources{more}"


def _count(value, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


_STYLE = """body{font-family:sans-serif;margin:1.5em;font-size:14px;color:#222}
h1{font-size:1.4em;margin:.2em 0}.broker{color:#555}.warn{background:#fff3cd;padding:.5em}
#controls{display:flex;flex-wrap:wrap;gap:.6em 1.4em;align-items:center;background:#f8f8f8;padding:.6em;
border:1px solid #ddd}#controls input[type=search]{width:16em}#ops label{margin-right:.6em;white-space:nowrap}
#counts{margin:.6em 0;color:#333}.pager button{margin:0 .2em}
#wrap{overflow:auto;max-height:75vh;border:1px solid #ddd}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 4px;text-align:left;
vertical-align:top}th{background:#f4f4f4;font-weight:normal}
thead th{position:sticky;top:0;z-index:2}thead th.col{writing-mode:vertical-rl;transform:rotate(180deg);
max-height:24em;white-space:normal}
tbody th{position:sticky;left:0;z-index:1;white-space:normal;max-width:30em}
thead th.corner{left:0;z-index:3}td.has{cursor:pointer;min-width:3em}td.has:hover,td.sel{outline:2px solid #2c7be5}
.op{display:inline-block;margin:1px;padding:0 3px;border-radius:3px;background:#d7efd9;white-space:nowrap}
.op.implied{background:#eee;color:#666;font-style:italic}.op.r-super_user{background:#e3d4f5}
.op.r-default_allow{background:#fde2c0}.op.r-wildcard_principal{background:#cfe3f7}
.op.r-prefixed,.op.r-wildcard_resource{background:#e5f0c9}.op sup{color:#c0392b}
#details{margin-top:1em}#details table{margin-top:.4em}.legend .op{margin-right:.4em}
.type,.n{color:#777}"""

_CONTROLS = """<div id="controls">
<label>Principal <input type="search" id="pfilter" placeholder="filter, e.g. User:alice"></label>
<label>Resource <input type="search" id="rfilter" placeholder="filter, e.g. TOPIC:orders"></label>
<span id="ops"></span>
<label><input type="checkbox" id="implied"> hide implied</label>
<label><input type="checkbox" id="bycount"> widest first</label>
<label><input type="checkbox" id="swap"> resources as rows</label>
</div>
<p class="legend">Cells list the operations allowed (hover for how, click for the deciding ACLs); a header's
(count) is the number of resources of its principal, or of principals on its resource, shown:
<span class="op">explicit ACL</span><span class="op r-prefixed">prefixed / wildcard resource</span>
<span class="op r-wildcard_principal">User:*</span><span class="op r-super_user">super user</span>
<span class="op r-default_allow">no ACL, allowed by default</span><span class="op implied">implied</span>
<span class="op">OP<sup>&dagger;</sup></span> a DENY excepts some principals or hosts;
<span class="op">OP@host</span> only from some hosts.</p>
<p id="counts"></p>
<p class="pager"><span id="rowname">principals</span> <button id="prow">&#9664;</button><button id="nrow">&#9654;</button>
<span id="colname">resources</span> <button id="pcol">&#9664;</button><button id="ncol">&#9654;</button></p>
<div id="wrap"><table id="matrix"></table></div>
<div id="details"></div>"""

# One page of the matrix at a time: ROWS x COLS (principals x resources, or resources x principals when
# swapped), each name drawn with textContent.
_SCRIPT = r"""(function () {
"use strict";
var D = JSON.parse(document.getElementById("data").textContent);
var P = D.principals, R = D.resources, O = D.operations, E = D.entries, RS = D.row_start, W = 7;
var ROWS = 100, COLS = 40, n = E.length / W;
var pLow = P.map(function (p) { return p.toLowerCase(); });
var rLow = R.map(function (r) { return (r[0] + ":" + r[1]).toLowerCase(); });
var state = {p: "", r: "", ops: O.map(function () { return true; }), implied: true, row0: 0, col0: 0,
  swap: !!D.swap};
var rows = [], cols = [], shown = 0;
// The two axes of the matrix: principals ("field" 0 of an entry) and resources (field 1). The rows'
// axis gives each row's entries: for principals the entries' own order (sorted by principal), for
// resources an order built on first use (a counting sort by resource, stable: then by principal).
var axes = {
  p: {name: "principal", size: P.length, field: 0, n: new Int32Array(P.length), start: RS, order: null,
      title: function (i) { return P[i]; },
      head: function (th, i) { th.appendChild(el("span", P[i], "name")); }},
  r: {name: "resource", size: R.length, field: 1, n: new Int32Array(R.length), start: null, order: null,
      title: function (i) { return R[i][0] + " " + R[i][1]; },
      head: function (th, i) {
        th.appendChild(el("span", R[i][0].toLowerCase() + " ", "type")); th.appendChild(el("span", R[i][1], "name"));
      }}
};
function rowAxis() { return state.swap ? axes.r : axes.p; }
function colAxis() { return state.swap ? axes.p : axes.r; }
function byResource() {
  var a = axes.r, start = new Int32Array(R.length + 1), i;
  for (i = 0; i < n; i++) start[E[i * W + 1] + 1]++;
  for (var r = 0; r < R.length; r++) start[r + 1] += start[r];
  var next = start.slice(0, R.length), order = new Int32Array(n);
  for (i = 0; i < n; i++) order[next[E[i * W + 1]]++] = i;
  a.start = start; a.order = order;
}
function el(tag, text, cls) {
  var e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
function visible(i) {
  var b = i * W;
  return state.ops[E[b + 2]] && (state.implied || !E[b + 4]);
}
function filter() {
  var pOk = pLow.map(function (p) { return p.indexOf(state.p) >= 0; });
  var rOk = rLow.map(function (r) { return r.indexOf(state.r) >= 0; });
  // Entries are sorted by principal then resource: a cell's entries are contiguous, so a cell is
  // counted once, when its first visible entry is met.
  var last = -1, pN = axes.p.n, rN = axes.r.n;
  pN.fill(0); rN.fill(0); shown = 0;
  for (var i = 0; i < n; i++) {
    var b = i * W;
    if (!(pOk[E[b]] && rOk[E[b + 1]] && visible(i))) continue;
    shown++;
    var key = E[b] * R.length + E[b + 1];
    if (key !== last) { pN[E[b]]++; rN[E[b + 1]]++; last = key; }
  }
  rows = shownOf(rowAxis()); cols = shownOf(colAxis());
  state.row0 = 0; state.col0 = 0;
  draw();
}
function shownOf(a) {
  var out = [];
  for (var i = 0; i < a.size; i++) if (a.n[i]) out.push(i);
  // Widest first: the principals that reach the most resources, the resources the most principals reach.
  if (state.byCount) out.sort(function (x, y) { return a.n[y] - a.n[x] || x - y; });
  return out;
}
function cellEntries(row, colPos) {
  var a = rowAxis(), cf = colAxis().field, byCol = {};
  if (!a.start) byResource();
  for (var k = a.start[row]; k < a.start[row + 1]; k++) {
    var i = a.order ? a.order[k] : k, c = colPos[E[i * W + cf]];
    if (c >= 0 && visible(i)) (byCol[c] = byCol[c] || []).push(i);
  }
  return byCol;
}
function chips(td, list) {
  // One chip per operation; "@hosts" only when no entry allows it from any host.
  var byOp = {}, order = [];
  list.forEach(function (i) {
    var o = E[i * W + 2];
    if (!byOp[o]) { byOp[o] = []; order.push(o); }
    byOp[o].push(i);
  });
  order.sort(function (x, y) { return x - y; });
  order.forEach(function (o) {
    var hosts = [], any = false, narrowed = false, implied = true, first = byOp[o][0] * W;
    byOp[o].forEach(function (i) {
      var b = i * W, h = D.hosts[E[b + 3]];
      if (h === "*") any = true; else if (hosts.indexOf(h) < 0) hosts.push(h);
      if (D.excepts[E[b + 6]].length) narrowed = true;
      if (!E[b + 4]) implied = false;
    });
    var text = O[o] + (any ? "" : "@" + hosts.slice(0, 2).join(",") + (hosts.length > 2 ? ",+" + (hosts.length - 2) : ""));
    var s = td.appendChild(el("span", text, "op r-" + D.vias[E[first + 5]][0] + (implied ? " implied" : "")));
    s.dataset.op = O[o];
    if (narrowed) s.appendChild(el("sup", "\u2020"));
  });
}
function header(th, a, i) {
  th.title = a.title(i); a.head(th, i); th.appendChild(el("span", " (" + a.n[i] + ")", "n"));
  return th;
}
function draw() {
  var table = document.getElementById("matrix"), ra = rowAxis(), ca = colAxis();
  var colPos = new Int32Array(ca.size).fill(-1);
  table.textContent = "";
  var pageRows = rows.slice(state.row0, state.row0 + ROWS), pageCols = cols.slice(state.col0, state.col0 + COLS);
  pageCols.forEach(function (i, c) { colPos[i] = c; });
  var head = el("tr");
  head.appendChild(el("th", ra.name + " \\ " + ca.name, "corner"));
  pageCols.forEach(function (i) { head.appendChild(header(el("th", null, "col"), ca, i)); });
  table.appendChild(el("thead")).appendChild(head);
  var body = table.appendChild(el("tbody"));
  pageRows.forEach(function (row) {
    var tr = body.appendChild(el("tr")), byCol = cellEntries(row, colPos);
    tr.appendChild(header(el("th"), ra, row));
    for (var c = 0; c < pageCols.length; c++) {
      var td = tr.appendChild(el("td"));
      if (byCol[c]) { td.className = "has"; td.entries = byCol[c]; td.tabIndex = 0; chips(td, byCol[c]); }
    }
  });
  counts(pageRows.length, pageCols.length);
  document.body.dataset.draws = String(Number(document.body.dataset.draws || 0) + 1);
}
function counts(nr, nc) {
  var ra = rowAxis(), ca = colAxis();
  var text = ra.name.charAt(0).toUpperCase() + ra.name.slice(1) + "s " + (nr ? state.row0 + 1 : 0) + "\u2013" +
    (state.row0 + nr) + " of " + rows.length + " shown (" + ra.size + " in all) \u00b7 " + ca.name + "s " +
    (nc ? state.col0 + 1 : 0) + "\u2013" + (state.col0 + nc) + " of " + cols.length + " (" + ca.size + " in all) \u00b7 " +
    shown + " of " + n + " grants shown";
  if (!n) text = "No principal is allowed anything on these resources.";
  document.getElementById("counts").textContent = text;
  document.getElementById("rowname").textContent = ra.name + "s";
  document.getElementById("colname").textContent = ca.name + "s";
  document.getElementById("prow").disabled = state.row0 === 0;
  document.getElementById("nrow").disabled = state.row0 + ROWS >= rows.length;
  document.getElementById("pcol").disabled = state.col0 === 0;
  document.getElementById("ncol").disabled = state.col0 + COLS >= cols.length;
}
function how(i) {
  var b = i * W, v = D.vias[E[b + 5]], x = D.excepts[E[b + 6]];
  return {op: O[E[b + 2]], implied: E[b + 4] ? "implied" : "", host: D.hosts[E[b + 3]],
    reason: D.reasons[v[0]] || v[0], acl: v[1], origin: v[2],
    except: x.map(function (e) { return e[0] + (e[1] === "*" ? "" : " from " + e[1]); }).join(", ")};
}
function details(td) {
  var box = document.getElementById("details"), p = P[E[td.entries[0] * W]], r = R[E[td.entries[0] * W + 1]];
  var sel = document.querySelector("td.sel");
  if (sel) sel.classList.remove("sel");
  td.classList.add("sel");
  box.textContent = "";
  box.appendChild(el("h2", p + " on " + r[0] + " " + r[1]));
  var t = box.appendChild(el("table")), hr = t.appendChild(el("tr"));
  ["operation", "", "host", "allowed by", "deciding ACL", "origin", "except (DENY)"].forEach(function (h) {
    hr.appendChild(el("th", h));
  });
  td.entries.forEach(function (i) {
    var h = how(i), tr = t.appendChild(el("tr"));
    [h.op, h.implied, h.host, h.reason, h.acl, h.origin, h.except].forEach(function (v) { tr.appendChild(el("td", v)); });
  });
}
function hover(td) {
  if (td.title) return;
  td.title = td.entries.map(function (i) {
    var h = how(i);
    return h.op + (h.implied ? " (implied)" : "") + " from " + h.host + ": " + h.reason +
      (h.acl ? " \u2014 " + h.acl : "") + (h.origin ? " [" + h.origin + "]" : "") + (h.except ? "; except " + h.except : "");
  }).join("\n");
}
var matrix = document.getElementById("matrix");
matrix.addEventListener("click", function (ev) { var td = ev.target.closest("td.has"); if (td) details(td); });
matrix.addEventListener("keydown", function (ev) {
  var td = ev.target.closest("td.has"); if (td && ev.key === "Enter") details(td);
});
matrix.addEventListener("mouseover", function (ev) { var td = ev.target.closest("td.has"); if (td) hover(td); });
var ops = document.getElementById("ops");
O.forEach(function (o, k) {
  var label = ops.appendChild(el("label")), box = label.appendChild(el("input"));
  box.type = "checkbox"; box.checked = true; box.dataset.op = o;
  box.addEventListener("change", function () { state.ops[k] = box.checked; filter(); });
  label.appendChild(document.createTextNode(" " + o));
});
var timer = null;
function typed(key, input) {
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { state[key] = input.value.trim().toLowerCase(); filter(); }, 120);
  });
}
typed("p", document.getElementById("pfilter"));
typed("r", document.getElementById("rfilter"));
document.getElementById("implied").addEventListener("change", function (ev) { state.implied = !ev.target.checked; filter(); });
document.getElementById("bycount").addEventListener("change", function (ev) { state.byCount = ev.target.checked; filter(); });
document.getElementById("swap").checked = state.swap;
document.getElementById("swap").addEventListener("change", function (ev) { state.swap = ev.target.checked; filter(); });
function page(id, key, step, total) {
  document.getElementById(id).addEventListener("click", function () {
    state[key] = Math.max(0, Math.min(state[key] + step, total() - 1)); draw();
  });
}
page("prow", "row0", -ROWS, function () { return rows.length; });
page("nrow", "row0", ROWS, function () { return rows.length; });
page("pcol", "col0", -COLS, function () { return cols.length; });
page("ncol", "col0", COLS, function () { return cols.length; });
filter();
document.body.dataset.ready = "1";
})();"""
