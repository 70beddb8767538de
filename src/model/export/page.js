(function () {
  "use strict";
  var violations = [];
  document.addEventListener("securitypolicyviolation", function (e) {
    violations.push(e.violatedDirective + " " + e.blockedURI);
  });
  var data = JSON.parse(document.getElementById("grove-data").textContent);
  var tree = document.getElementById("tree");
  var count = document.getElementById("count");
  var filterSel = document.getElementById("filter");
  var search = document.getElementById("search");
  var sections = {};
  var byAnchor = {};
  Array.prototype.forEach.call(document.querySelectorAll("section.entry"), function (s) {
    sections[s.getAttribute("data-i")] = s;
  });
  data.anchors.forEach(function (a, i) { byAnchor[a] = i; });
  var selected = data.leaf;
  var onPath = {};
  var haystack = null;

  function pathTo(i) {
    var p = [];
    var seen = {};
    while (i !== null && i !== undefined && !seen[i]) {
      seen[i] = true;
      p.push(i);
      i = data.parents[i];
    }
    return p.reverse();
  }

  function rowPlain(i) {
    return data.rows[i].map(function (s) { return s[1]; }).join("");
  }

  // Lower-cased searchable text per entry: its row, its label and its transcript text.
  function textOf(i) {
    if (!haystack) {
      haystack = data.rows.map(function (_, j) {
        var s = sections[j];
        return (rowPlain(j) + " " + (data.labels[j] || "") + " " + (s ? s.textContent : "")).toLowerCase();
      });
    }
    return haystack[i];
  }

  function tokens() {
    return search.value.toLowerCase().split(/\s+/).filter(function (t) { return t.length > 0; });
  }

  function rowElement(entry, prefix) {
    var d = document.createElement("div");
    d.className = "row";
    d.setAttribute("data-i", String(entry));
    var p = document.createElement("span");
    p.className = "pre";
    p.textContent = prefix;
    d.appendChild(p);
    if (data.labels[entry] !== null) {
      var l = document.createElement("span");
      l.className = "r-label";
      l.textContent = "[" + data.labels[entry] + "] ";
      d.appendChild(l);
    }
    data.rows[entry].forEach(function (sp) {
      var s = document.createElement("span");
      s.className = "r-" + sp[0];
      s.textContent = sp[1];
      d.appendChild(s);
    });
    d.title = data.ids[entry];
    return d;
  }

  function renderTree() {
    var rows = data.filters[filterSel.value] || [];
    var q = tokens();
    var frag = document.createDocumentFragment();
    var n = 0;
    rows.forEach(function (r) {
      var i = r[0];
      if (q.length > 0) {
        var t = textOf(i);
        for (var k = 0; k < q.length; k++) {
          if (t.indexOf(q[k]) < 0) { return; }
        }
      }
      var el = rowElement(i, q.length > 0 ? "" : r[1]);
      if (onPath[i]) { el.className += " path"; }
      if (i === selected) { el.className += " sel"; }
      frag.appendChild(el);
      n++;
    });
    tree.textContent = "";
    tree.appendChild(frag);
    count.textContent = n + (n === 1 ? " entry" : " entries");
  }

  // Shows the branch from the root to entry i in the transcript.
  function showBranch(i) {
    selected = i;
    onPath = {};
    pathTo(i).forEach(function (j) { onPath[j] = true; });
    Object.keys(sections).forEach(function (k) { sections[k].hidden = !onPath[k]; });
    renderTree();
  }

  function nearestShown(i) {
    var p = pathTo(i);
    for (var k = p.length - 1; k >= 0; k--) {
      if (sections[p[k]]) { return sections[p[k]]; }
    }
    return null;
  }

  tree.addEventListener("click", function (ev) {
    var row = ev.target.closest ? ev.target.closest(".row") : null;
    if (!row) { return; }
    var i = Number(row.getAttribute("data-i"));
    showBranch(i);
    var s = nearestShown(i);
    if (s) { s.scrollIntoView({ block: "start" }); }
  });
  filterSel.addEventListener("change", renderTree);
  search.addEventListener("input", renderTree);

  function followHash() {
    var h = decodeURIComponent(location.hash.slice(1));
    if (Object.prototype.hasOwnProperty.call(byAnchor, h)) {
      var i = byAnchor[h];
      showBranch(i);
      var s = nearestShown(i);
      if (s) { s.scrollIntoView({ block: "start" }); }
      return true;
    }
    return false;
  }
  window.addEventListener("hashchange", followHash);

  if (!followHash()) {
    if (data.leaf !== null) { showBranch(data.leaf); } else { renderTree(); }
  }

  // Self-check for tests: `#selftest=QUERY` tries each filter and the search and reports.
  if (location.hash.indexOf("#selftest") === 0) {
    var query = decodeURIComponent(location.hash.slice("#selftest=".length));
    var report = { filters: {}, counts: {} };
    data.modes.forEach(function (m) {
      filterSel.value = m;
      filterSel.dispatchEvent(new Event("change"));
      report.filters[m] = tree.children.length;
      report.counts[m] = count.textContent;
    });
    filterSel.value = "default";
    filterSel.dispatchEvent(new Event("change"));
    report.rows = Array.prototype.map.call(tree.children, function (e) { return e.textContent; });
    search.value = query;
    search.dispatchEvent(new Event("input"));
    report.hits = Array.prototype.map.call(tree.children, function (e) {
      return data.ids[Number(e.getAttribute("data-i"))];
    });
    if (tree.firstChild) { tree.firstChild.click(); }
    report.shown = Object.keys(sections).filter(function (k) { return !sections[k].hidden; })
      .map(function (k) { return data.ids[Number(k)]; });
    search.value = "";
    search.dispatchEvent(new Event("input"));
    report.resources = performance.getEntriesByType("resource").map(function (e) { return e.name; });
    report.violations = violations;
    report.scripts = document.scripts.length;
    report.images = document.images.length;
    report.iframes = document.querySelectorAll("iframe,object,embed,link,base,form").length;
    report.liveLinks = Array.prototype.filter.call(document.querySelectorAll("a[href]"), function (a) {
      return a.getAttribute("href").charAt(0) !== "#";
    }).length;
    report.pwned = window.__pwned === undefined ? null : String(window.__pwned);
    report.title = document.title;
    var out = document.getElementById("selftest");
    out.textContent = JSON.stringify(report);
    out.hidden = false;
  }
})();
