/* The archive explorer (plots/explorer): draws the archive of one run from the JSON blob
   embedded in the page, and shows an elite's card on a click. No library, nothing fetched. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("explorer-data").textContent);
  var N = D.n, AX = D.axes, DIM = AX.length, C = D.cols;
  var MISSING = "\u2014";  // shown where a run lacks a value

  // ------------------------------------------------------------------ formatting
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }
  function ok(v) { return v !== null && v !== undefined && isFinite(v); }
  function pct(v) { return ok(v) ? (100 * v).toFixed(1) + "%" : MISSING; }
  function num(v) {  // three significant digits, as the report prints numbers
    if (!ok(v)) return MISSING;
    if (Math.abs(v) >= 1000) return String(Math.round(v));
    return String(Number(Number(v).toPrecision(3)));
  }
  function interval(lo, hi, f) {
    return ok(lo) && ok(hi) ? f(lo) + " to " + f(hi) : MISSING;
  }
  function games(n) { return ok(n) ? String(Math.round(n)) : MISSING; }
  function col(name, i) { var c = C[name]; return c ? c[i] : null; }

  // ------------------------------------------------------------------ fields to colour by
  var FIELDS = [];  // {key, label, pct, evolved(i), held(i)}
  FIELDS.push({key: "win_rate", label: "win rate", pct: true,
               evolved: function (i) { return C.win_rate[i]; },
               held: function (i) { return col("v:win_rate", i); }});
  FIELDS.push({key: "mean_score", label: "mean score", pct: false,
               evolved: function (i) { return C.mean_score[i]; },
               held: function (i) { return col("v:mean_score", i); }});
  D.stats.forEach(function (f) {
    FIELDS.push({key: "f:" + f, label: f + " (mean over games)", pct: false,
                 evolved: function (i) { return C["mean:" + f][i]; },
                 held: function (i) { return col("v:" + f, i); }});
  });
  D.scripts.forEach(function (w) {
    FIELDS.push({key: "w:" + w, label: "weight of " + w, pct: false, weight: true,
                 evolved: function (i) { return C["w:" + w][i]; },
                 held: function (i) { return C["w:" + w][i]; }});
  });
  function field(key) {
    for (var k = 0; k < FIELDS.length; k++) if (FIELDS[k].key === key) return FIELDS[k];
    return FIELDS[0];
  }
  function spread(vals) {
    var lo = Infinity, hi = -Infinity;
    for (var i = 0; i < vals.length; i++) if (ok(vals[i])) {
      if (vals[i] < lo) lo = vals[i];
      if (vals[i] > hi) hi = vals[i];
    }
    return lo <= hi ? [lo, hi] : [0, 1];
  }
  function defaultField() {  // a one-player game wins every game: colour by the score
    var w = spread(C.win_rate), s = spread(C.mean_score);
    return (D.score_quality || (w[0] === w[1] && s[0] !== s[1])) ? "mean_score" : "win_rate";
  }

  var QUALITY = defaultField();  // what the card leads with: the win rate, or the score

  // ------------------------------------------------------------------ state
  var S = {view: "evolved", x: 0, y: DIM > 1 ? 1 : -1, field: QUALITY, selected: -1,
           compare: []};
  var L = null;  // the layout of the current map: axes, cells, pixel geometry

  // ------------------------------------------------------------------ colours (viridis)
  var STOPS = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142],
               [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]];
  function colour(t) {
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    var x = t * (STOPS.length - 1), k = Math.min(STOPS.length - 2, Math.floor(x)), f = x - k;
    var a = STOPS[k], b = STOPS[k + 1];
    return "rgb(" + Math.round(a[0] + f * (b[0] - a[0])) + "," +
      Math.round(a[1] + f * (b[1] - a[1])) + "," + Math.round(a[2] + f * (b[2] - a[2])) + ")";
  }

  // ------------------------------------------------------------------ geometry
  function pos(view, i, a) {  // an elite's bin on axis a in a view (-1: not in that view)
    return view === "held" ? D.vgrid[i * DIM + a] : D.grid[i * DIM + a];
  }
  function priority(view, i) {  // which elite a folded cell shows
    if (view === "held") {
      var v = col("v:win_rate", i);
      return (col("distinct", i) ? 2 : 0) + (ok(v) ? v : -1);
    }
    var o = C.objective[i];
    return ok(o) ? o : (ok(C.win_rate[i]) ? C.win_rate[i] : -1);
  }
  function layout() {
    var x = S.x, y = S.y, views = D.validated ? ["evolved", "held"] : ["evolved"];
    var xlo = Infinity, xhi = -Infinity, ylo = Infinity, yhi = -Infinity;
    views.forEach(function (v) {
      for (var i = 0; i < N; i++) {
        var px = pos(v, i, x);
        if (px < 0) continue;
        if (px < xlo) xlo = px;
        if (px > xhi) xhi = px;
        if (y >= 0) {
          var py = pos(v, i, y);
          if (py < ylo) ylo = py;
          if (py > yhi) yhi = py;
        }
      }
    });
    if (!(xlo <= xhi)) { xlo = 0; xhi = AX[x].bins - 1; }
    if (y < 0 || !(ylo <= yhi)) { ylo = 0; yhi = y < 0 ? 0 : AX[y].bins - 1; }
    var nx = xhi - xlo + 1, ny = yhi - ylo + 1;
    var cs = Math.max(4, Math.min(72, Math.floor(620 / Math.max(nx, ny))));
    var left = 70, top = 12, bottom = 56;
    var shown = new Int32Array(nx * ny).fill(-1), count = new Int32Array(nx * ny);
    var best = new Float64Array(nx * ny).fill(-Infinity);
    for (var i = 0; i < N; i++) {
      var cx = pos(S.view, i, x);
      if (cx < 0) continue;
      var cy = y >= 0 ? pos(S.view, i, y) : 0;
      var k = (cy - ylo) * nx + (cx - xlo);
      count[k]++;
      var p = priority(S.view, i);
      if (p > best[k]) { best[k] = p; shown[k] = i; }
    }
    L = {x: x, y: y, xlo: xlo, ylo: ylo, nx: nx, ny: ny, cs: cs, left: left, top: top,
         width: left + nx * cs + 12, height: top + ny * cs + bottom, shown: shown, count: count};
  }
  function cellOf(i) {  // [column, row from the bottom] of an elite in the current map
    var cx = pos(S.view, i, L.x);
    if (cx < 0) return null;
    var cy = L.y >= 0 ? pos(S.view, i, L.y) : 0;
    return [cx - L.xlo, cy - L.ylo];
  }
  function cellRect(c, r) {  // canvas pixels of a cell (row 0 at the bottom)
    return [L.left + c * L.cs, L.top + (L.ny - 1 - r) * L.cs, L.cs, L.cs];
  }

  // ------------------------------------------------------------------ drawing
  var canvas, ctx, legendBox, card, compareBox;
  function values() {
    var f = field(S.field), get = S.view === "held" ? f.held : f.evolved, out = [];
    for (var k = 0; k < L.shown.length; k++) out.push(L.shown[k] >= 0 ? get(L.shown[k]) : null);
    return out;
  }
  function range(f, vals) {
    if (f.pct) return [0, 1];
    if (f.weight) { var s = spread(vals); return [Math.min(0, s[0]), Math.max(1, s[1])]; }
    var all = [];  // the same range in both views, so that switching compares colours
    for (var i = 0; i < N; i++) { all.push(f.evolved(i)); if (D.validated) all.push(f.held(i)); }
    return spread(all);
  }
  function wide(i) {
    var lo = S.view === "held" ? col("v:ci_low", i) : C.ci_low[i];
    var hi = S.view === "held" ? col("v:ci_high", i) : C.ci_high[i];
    return ok(lo) && ok(hi) && hi - lo > D.wide;
  }
  function notHeld(i) { return D.counted && col("distinct", i) === false; }
  var baseKey = null, base = document.createElement("canvas");
  function draw() {  // the map (drawn again only when what it shows changed), then outlines
    var key = [S.view, S.x, S.y, S.field].join("|"), dpr = window.devicePixelRatio || 1;
    if (key !== baseKey) {
      drawBase();
      base.width = canvas.width;
      base.height = canvas.height;
      base.getContext("2d").drawImage(canvas, 0, 0);
      baseKey = key;
    } else {
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(base, 0, 0);
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    outline();
  }
  function drawBase() {
    layout();
    var dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(L.width * dpr);
    canvas.height = Math.round(L.height * dpr);
    canvas.style.width = L.width + "px";
    canvas.style.height = L.height + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, L.width, L.height);
    var f = field(S.field), vals = values(), rg = range(f, vals), span = rg[1] - rg[0] || 1;
    var cs = L.cs, k, r, c, rect, i;
    ctx.fillStyle = "#f1f1f1";
    ctx.fillRect(L.left, L.top, L.nx * cs, L.ny * cs);
    var crosses = [], hatches = [], texts = [];
    for (r = 0; r < L.ny; r++) for (c = 0; c < L.nx; c++) {
      k = r * L.nx + c;
      i = L.shown[k];
      if (i < 0) continue;
      rect = cellRect(c, r);
      var v = vals[k];
      ctx.fillStyle = ok(v) ? colour((v - rg[0]) / span) : "#c8c8c8";
      ctx.fillRect(rect[0], rect[1], cs, cs);
      if (notHeld(i)) crosses.push(rect);
      if (wide(i)) hatches.push(rect);
      if (cs >= 30) texts.push([rect, ok(v) ? (f.pct ? Math.round(100 * v) + "%" : num(v)) : MISSING,
                                ok(v) && (v - rg[0]) / span > 0.6]);
    }
    if (cs >= 8) {  // cell borders
      ctx.strokeStyle = "rgba(255,255,255,0.9)";
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (c = 0; c <= L.nx; c++) { ctx.moveTo(L.left + c * cs + 0.5, L.top); ctx.lineTo(L.left + c * cs + 0.5, L.top + L.ny * cs); }
      for (r = 0; r <= L.ny; r++) { ctx.moveTo(L.left, L.top + r * cs + 0.5); ctx.lineTo(L.left + L.nx * cs, L.top + r * cs + 0.5); }
      ctx.stroke();
    }
    if (hatches.length && cs >= 12) {
      ctx.save();
      ctx.strokeStyle = "rgba(255,255,255,0.55)";
      ctx.lineWidth = 1;
      ctx.beginPath();
      hatches.forEach(function (q) {
        var step = Math.max(3, q[2] / 5);
        for (var d = step; d < 2 * q[2]; d += step) {
          var x0 = q[0] + Math.max(0, d - q[2]), y0 = q[1] + Math.min(d, q[2]);
          var x1 = q[0] + Math.min(d, q[2]), y1 = q[1] + Math.max(0, d - q[2]);
          ctx.moveTo(x0, y0); ctx.lineTo(x1, y1);
        }
      });
      ctx.stroke();
      ctx.restore();
    }
    if (crosses.length) {
      ctx.save();
      ctx.strokeStyle = "rgba(90,90,90,0.9)";
      ctx.lineWidth = Math.max(1, cs / 14);
      ctx.beginPath();
      crosses.forEach(function (q) {
        var m = q[2] * 0.15;
        ctx.moveTo(q[0] + m, q[1] + m); ctx.lineTo(q[0] + q[2] - m, q[1] + q[3] - m);
        ctx.moveTo(q[0] + q[2] - m, q[1] + m); ctx.lineTo(q[0] + m, q[1] + q[3] - m);
      });
      ctx.stroke();
      ctx.restore();
    }
    if (texts.length) {
      ctx.font = Math.min(13, Math.floor(cs / 3.2)) + "px system-ui,sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.lineWidth = 3;
      ctx.lineJoin = "round";
      texts.forEach(function (t) {  // outlined, so that a cross does not hide the value
        ctx.strokeStyle = t[2] ? "rgba(255,255,255,0.8)" : "rgba(0,0,0,0.6)";
        ctx.strokeText(t[1], t[0][0] + cs / 2, t[0][1] + cs / 2);
        ctx.fillStyle = t[2] ? "#111" : "#fff";
        ctx.fillText(t[1], t[0][0] + cs / 2, t[0][1] + cs / 2);
      });
    }
    axesText();
    legend(f, rg);
    canvas.dataset.cells = String(L.nx * L.ny);
  }
  function outline() {
    S.compare.forEach(function (i, n) {
      var p = cellOf(i);
      if (!p) return;
      var q = cellRect(p[0], p[1]);
      ctx.strokeStyle = "#1f5fbf";
      ctx.lineWidth = 2;
      ctx.strokeRect(q[0] + 1, q[1] + 1, q[2] - 2, q[3] - 2);
      if (L.cs >= 16) {
        ctx.fillStyle = "#1f5fbf";
        ctx.font = "bold 10px system-ui,sans-serif";
        ctx.textAlign = "left";
        ctx.textBaseline = "top";
        ctx.fillText(String(n + 1), q[0] + 3, q[1] + 2);
      }
    });
    if (S.selected >= 0) {
      var p = cellOf(S.selected);
      if (p) {
        var q = cellRect(p[0], p[1]);
        ctx.strokeStyle = "#d62728";
        ctx.lineWidth = Math.max(2, Math.min(3, L.cs / 6));
        ctx.strokeRect(q[0] + 1, q[1] + 1, q[2] - 2, q[3] - 2);
      }
    }
  }
  function axesText() {
    var ax = AX[L.x], cs = L.cs, every = Math.max(1, Math.ceil(40 / cs));
    ctx.fillStyle = "#333";
    ctx.font = "11px system-ui,sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    var yb = L.top + L.ny * cs + 3;
    for (var c = 0; c <= L.nx; c += every) {
      ctx.fillText(edge(ax, L.xlo + c), L.left + c * cs, yb);
    }
    ctx.font = "12px system-ui,sans-serif";
    ctx.fillText(ellipsis(ax.name, 90), L.left + L.nx * cs / 2, yb + 18);
    if (L.y >= 0) {
      var ay = AX[L.y];
      ctx.font = "11px system-ui,sans-serif";
      ctx.textAlign = "right";
      ctx.textBaseline = "middle";
      for (var r = 0; r <= L.ny; r += every) {
        ctx.fillText(edge(ay, L.ylo + r), L.left - 4, L.top + (L.ny - r) * cs);
      }
      ctx.save();
      ctx.translate(14, L.top + L.ny * cs / 2);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = "center";
      ctx.font = "12px system-ui,sans-serif";
      ctx.fillText(ellipsis(ay.name, 60), 0, 0);
      ctx.restore();
    }
  }
  function edge(a, b) { return String(Number((a.lo + b * a.width).toPrecision(4))); }
  function ellipsis(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  function legend(f, rg) {
    var src = S.view === "held" && !f.weight ? D.sources.held : D.sources.evolved;
    var what = f.weight ? f.label + " (the elite's genome)" : f.label + " of each cell's elite, from " + src;
    var lo = f.pct ? pct(rg[0]) : num(rg[0]), hi = f.pct ? pct(rg[1]) : num(rg[1]);
    var h = '<div><b>Colour</b>: <span id="legend-field">' + esc(what) + '</span></div>' +
      '<div class="key">' + '<span id="legend-lo">' + esc(lo) + '</span><canvas id="legend-bar" width="180" height="12"></canvas>' +
      '<span id="legend-hi">' + esc(hi) + '</span></div>' +
      '<span class="key"><span class="swatch" style="background:#f1f1f1"></span>no elite</span>' +
      '<span class="key"><span class="swatch" style="background:#c8c8c8"></span>no value (' + MISSING + ')</span>';
    if (D.counted) h += '<span class="key">\u2715 grey cross: ' + esc(D.mark) + '</span>';
    else if (D.validated) h += '<span class="key note">distinct styles were not counted by this validation: no cell is crossed</span>';
    if (C.ci_low.some(ok)) {
      h += '<span class="key">' + (L.cs >= 12 ? 'hatched' : 'hatched when cells are drawn larger (not at this size)') +
        ': the win rate\'s 95% interval is wider than ' + Math.round(100 * D.wide) + ' points</span>';
    }
    h += '<span class="key">' + (DIM > 2 || (L.y < 0 && DIM > 1) ? "each cell shows the best elite over the features not drawn; " : "") +
      (S.view === "held" ? "each validated elite at the cell its held-out games put it in" : "each elite at the cell evolution found for it") + '</span>';
    legendBox.innerHTML = h;
    legendBox.style.maxWidth = Math.max(360, L.width) + "px";
    var bar = document.getElementById("legend-bar"), b = bar.getContext("2d");
    for (var x = 0; x < bar.width; x++) { b.fillStyle = colour(x / (bar.width - 1)); b.fillRect(x, 0, 1, bar.height); }
  }

  // ------------------------------------------------------------------ the card
  function weightBars(i) {
    if (!D.scripts.length) return '<p class="note">This run records no script weights.</p>';
    var h = '<table class="weights"><tr><th class="l">script</th><th class="l">weight</th></tr>';
    D.scripts.forEach(function (w) {
      var v = C["w:" + w][i];
      h += '<tr><td class="l">' + esc(w) + '</td><td class="l"><span class="barbox"><span class="bar" style="width:' +
        (ok(v) ? Math.max(0, Math.min(1, v)) * 100 : 0) + '%"></span></span><span data-k="w:' + esc(w) + '">' +
        num(v) + '</span></td></tr>';
    });
    return h + '</table>';
  }
  function styleTag(i) {
    if (!D.validated) return '<span class="tag none">not validated</span>';
    var s = col("style", i), dist = col("distinct", i);
    if (!ok(col("v:win_rate", i))) return '<span class="tag none">not validated</span>';
    if (!D.counted || dist === null) return '<span class="tag none">styles not counted</span>';
    return dist ? '<span class="tag ok">distinct style #' + Math.round(s) + '</span>' :
      '<span class="tag bad">' + esc(D.mark) + '</span>';
  }
  function qualityRows(i, key) {
    var h = "", ev = D.sources.evolved, held = D.sources.held, ctl = D.control;
    var isScore = key === "mean_score";
    var f = isScore ? num : pct;
    function row(name, src, v, lo, hi, n, k) {
      return '<tr data-source="' + k + '"><td class="l">' + esc(name) + (src !== name ? '<br><span class="small">' + esc(src) +
        '</span>' : '') + '</td><td data-k="' + key + ':' + k + '">' + f(v) + '</td><td data-k="' + key + '-ci:' + k + '">' +
        interval(lo, hi, f) + '</td><td data-k="games:' + k + '">' + games(n) + '</td></tr>';
    }
    if (isScore) {
      h += row(ev.split(" (")[0], ev, C.mean_score[i], null, null, C.games[i], "evolved");
      if (D.validated) h += row("held out", held, col("v:mean_score", i), null, null, col("v:games", i), "held");
      if (ctl && ok(ctl.mean_score)) h += row("the control", "default weights, same games as held out", ctl.mean_score,
                                             (ctl.mean_score_ci || [])[0], (ctl.mean_score_ci || [])[1], ctl.games, "control");
    } else {
      h += row(ev.split(" (")[0], ev, C.win_rate[i], C.ci_low[i], C.ci_high[i], C.games[i], "evolved");
      if (D.validated) h += row("held out", held, col("v:win_rate", i), col("v:ci_low", i), col("v:ci_high", i),
                                col("v:games", i), "held");
      if (ctl) h += row("the control", "default weights, same games as held out", ctl.win_rate, ctl.win_rate_ci[0],
                        ctl.win_rate_ci[1], ctl.games, "control");
    }
    return h;
  }
  function valueCi(key, v, lo, hi) {
    return '<span data-k="' + esc(key) + '">' + num(v) + '</span> <span class="small">' + interval(lo, hi, num) + '</span>';
  }
  function featureRows(i) {
    var h = "";
    AX.forEach(function (a) {
      var f = a.name, m = col("mean:" + f, i), se = col("se:" + f, i);
      var elo = ok(m) && ok(se) ? m - 1.96 * se : null, ehi = ok(m) && ok(se) ? m + 1.96 * se : null;
      h += '<tr><td class="l" title="' + esc(a.label) + '">' + esc(f) + '</td><td>' + valueCi("f:" + f + ":evolved", m, elo, ehi) + '</td>';
      if (D.validated) {
        h += '<td>' + valueCi("f:" + f + ":held", col("v:" + f, i), col("v:ci_low:" + f, i), col("v:ci_high:" + f, i)) + '</td>';
        var c = D.control && D.control.features[f];
        h += '<td>' + (c ? valueCi("f:" + f + ":control", c.mean, c.ci[0], c.ci[1]) : MISSING) + '</td>';
      }
      h += '</tr>';
    });
    return h;
  }
  function featureHead(i) {
    var ctl = D.control, h = '<tr><th class="l">feature</th><th>' + esc(D.sources.evolved.split(" (")[0]) +
      '<br><span class="small">' + games(C.games[i]) + ' games</span></th>';
    if (D.validated) {
      h += '<th>held out<br><span class="small">' + games(col("v:games", i)) + ' games</span></th><th>the control<br><span class="small">' +
        (ctl ? games(ctl.games) + ' games' : 'not played') + '</span></th>';
    }
    return h + '</tr>';
  }
  function useLine(i) {
    var cell = C.cell[i], presets = D.presets[cell] || [], where = D.where;
    if (presets.length) {
      return presets.map(function (p) {
        return '<pre class="code" data-k="preset">preset:' + esc(where + "/" + p.file + "#" + p.name) + '</pre>';
      }).join("") + '<p class="note">Wherever an agent is named: <code>playstyles play --p1 "preset:' +
        esc(where + "/" + presets[0].file + "#" + presets[0].name) + '" --p2 human</code>.</p>';
    }
    var file = "elite_" + cell.replace(/[^0-9A-Za-z.-]+/g, "_") + ".json";
    return '<p class="note">Not in a preset file yet. Export this elite, then name it wherever an agent is named:</p>' +
      '<pre class="code" data-k="export">playstyles export ' + esc(where) + ' --cells ' + esc(cell) + ' -o ' + esc(file) +
      '</pre><pre class="code" data-k="preset">preset:' + esc(file) + '</pre>';
  }
  function versusSection() {  // the boards playstyles versus drew: two styles and the control, side by side
    var vs = D.versus || [];
    if (!vs.length) return "";
    var h = '<section id="versus"><h2>Styles played side by side</h2>', last = null;
    vs.forEach(function (v, k) {  // each image's data URI is set once the section is in the page
      if (v.heading !== last) { h += '<h3>' + esc(v.heading) + '</h3><p class="note">' + esc(v.caption) + '</p>'; last = v.heading; }
      h += '<img alt="' + esc(v.alt) + '" data-v="' + k + '">';
    });
    return h + '</section>';
  }
  function versusImages() {
    var ims = document.querySelectorAll("#versus img");
    for (var k = 0; k < ims.length; k++) {
      var src = D.versus[+ims[k].getAttribute("data-v")].src;
      if (src.indexOf("data:image/png;base64,") === 0) ims[k].src = src;  // never a fetch
    }
  }
  function boards(i) {
    var shown = (D.versus || []).length ? ' Boards of two styles played side by side are below the map.' : '';
    return '<p class="note" data-k="boards">No game of this elite was recorded: a run directory keeps its games as ' +
      'numbers only. To watch one, play it with <code>--record game.json</code> and draw its boards with ' +
      '<code>playstyles replay game.json --images boards/</code>, or play it beside another style with ' +
      '<code>playstyles versus ' + esc(D.where) + ' ' + esc(C.cell[i]) + ' CELL</code>.' + shown + '</p>';
  }
  function others(i) {
    var p = cellOf(i);
    if (!p) return "";
    var k = p[1] * L.nx + p[0];
    if (L.count[k] < 2) return "";
    var list = [];
    for (var j = 0; j < N && list.length < 40; j++) {
      if (j === i) continue;
      var q = cellOf(j);
      if (q && q[0] === p[0] && q[1] === p[1]) list.push(j);
    }
    return '<p class="others small">' + (L.count[k] - 1) + ' more elite' + (L.count[k] > 2 ? "s" : "") +
      ' in this cell (over the features not drawn' + (S.view === "held" ? ", or landed here on held-out levels" : "") + '): ' +
      list.map(function (j) { return '<a data-elite="' + j + '">' + esc(C.cell[j]) + '</a>'; }).join(" ") + '</p>';
  }
  function showCard(i) {
    S.selected = i;
    var held = D.validated;
    var h = '<h2>Elite <span data-k="cell">' + esc(C.cell[i]) + '</span>' + styleTag(i) + '</h2>' +
      '<div class="small">style: <b data-k="style_name">' + esc(C.style_name[i]) + '</b>' +
      (held && ok(col("v:win_rate", i)) ? " (named from its held-out means)" : " (named from its means over its games)") +
      (D.validated && ok(col("v:win_rate", i)) && col("v:cell", i) ? '; held-out cell <span data-k="v:cell">' + esc(col("v:cell", i)) + '</span>' : "") +
      '</div>' +
      '<p><button type="button" id="compare-add">' + (S.compare.indexOf(i) >= 0 ? "remove from comparison" : "compare") +
      '</button> <span class="small">(or Shift/Ctrl-click cells)</span></p>' + others(i) +
      '<h3>Use it</h3>' + useLine(i) +
      '<h3>' + (QUALITY === "mean_score" ? "Mean score <span class=\"small\">(every elite has the same win rate: the score tells them apart)</span>" :
                "Win rate <span class=\"small\">(95% interval: Wilson)</span>") + '</h3>' +
      '<table class="quality"><tr><th class="l">games from</th><th>value</th><th>95% interval</th><th>games</th></tr>' +
      qualityRows(i, QUALITY) + '</table>';
    if (D.validated && D.counted && ok(col("v:win_rate", i))) {
      var w = col("noninferior", i), df = col("differs", i);
      h += '<p class="small" data-k="vs-control">' + (!col("distinct", i) ? "Only the distinct styles are tested against the control." :
        w === null && df === null ? "Against the control: not tested (this validation played no control)." :
        "Against the control: " + (w === null ? MISSING : w ? "non-inferior" : "not shown non-inferior") + "; " +
        (df === null ? MISSING : df ? "a feature differs by more than the minimum effect" : "no feature differs by more than the minimum effect") + ".") + '</p>';
    }
    h += '<h3>Features <span class="small">(mean over the games, its 95% interval)</span></h3><table class="features">' +
      featureHead(i) + featureRows(i) + '</table>';
    h += '<h3>Weights <span class="small">dominant: <span data-k="dominant">' + esc(C.dominant[i] || MISSING) + '</span></span></h3>' + weightBars(i);
    h += '<h3>Board images</h3>' + boards(i);
    h += '<p class="small">Found in batch ' + games(C.batch[i]) + ', evaluation ' + games(C.evaluation[i]) + '.</p>';
    card.className = "";
    card.innerHTML = h;
    document.getElementById("compare-add").onclick = function () { toggleCompare(i); };
    var links = card.querySelectorAll("a[data-elite]");
    for (var k = 0; k < links.length; k++) links[k].onclick = function (e) { select(+e.target.dataset.elite); };
    card.dataset.elite = String(i);
  }

  // ------------------------------------------------------------------ comparison
  function toggleCompare(i) {
    var k = S.compare.indexOf(i);
    if (k >= 0) S.compare.splice(k, 1); else S.compare.push(i);
    renderCompare();
    draw();
    if (S.selected >= 0) showCard(S.selected);
  }
  function renderCompare() {
    if (!S.compare.length) { compareBox.innerHTML = ""; return; }
    var ids = S.compare, ev = D.sources.evolved.split(" (")[0];
    function line(name, f) {
      return '<tr><th class="l">' + name + '</th>' + ids.map(function (i) { return '<td>' + f(i) + '</td>'; }).join("") + '</tr>';
    }
    var h = '<h2>Comparison <button type="button" id="compare-clear">clear</button></h2>' +
      '<table id="compare-table"><tr><th class="l">elite</th>' + ids.map(function (i, n) {
        return '<th data-elite="' + i + '">' + (n + 1) + ': ' + esc(C.cell[i]) + ' <button type="button" data-drop="' + i + '" title="remove">\u2715</button></th>';
      }).join("") + '</tr>';
    h += line("style", function (i) { return esc(C.style_name[i]) + " " + styleTag(i); });
    h += line("win rate, " + esc(ev) + " (games)", function (i) {
      return pct(C.win_rate[i]) + ' <span class="small">' + interval(C.ci_low[i], C.ci_high[i], pct) + ' (' + games(C.games[i]) + ')</span>';
    });
    if (D.validated) h += line("win rate, held out (games)", function (i) {
      return pct(col("v:win_rate", i)) + ' <span class="small">' + interval(col("v:ci_low", i), col("v:ci_high", i), pct) +
        ' (' + games(col("v:games", i)) + ')</span>';
    });
    h += line("mean score, " + esc(ev), function (i) { return num(C.mean_score[i]); });
    AX.forEach(function (a) {
      h += line(esc(a.name) + ", " + esc(ev), function (i) {
        var m = col("mean:" + a.name, i), se = col("se:" + a.name, i);
        return num(m) + ' <span class="small">' + interval(ok(se) ? m - 1.96 * se : null, ok(se) ? m + 1.96 * se : null, num) + '</span>';
      });
      if (D.validated) h += line(esc(a.name) + ", held out", function (i) {
        return num(col("v:" + a.name, i)) + ' <span class="small">' +
          interval(col("v:ci_low:" + a.name, i), col("v:ci_high:" + a.name, i), num) + '</span>';
      });
    });
    h += line("dominant scripts", function (i) { return esc(C.dominant[i] || MISSING); });
    D.scripts.forEach(function (w) {
      h += line("weight " + esc(w), function (i) {
        var v = C["w:" + w][i];
        return '<span class="barbox"><span class="bar" style="width:' + (ok(v) ? Math.max(0, Math.min(1, v)) * 100 : 0) +
          '%"></span></span>' + num(v);
      });
    });
    compareBox.innerHTML = h + '</table><p class="small">Intervals are 95%: Wilson for win rates, mean \u00b1 1.96 standard errors for ' +
      'evolved features, Student\'s t for held-out features.</p>';
    document.getElementById("compare-clear").onclick = function () { S.compare = []; renderCompare(); draw(); if (S.selected >= 0) showCard(S.selected); };
    var drops = compareBox.querySelectorAll("button[data-drop]");
    for (var k = 0; k < drops.length; k++) drops[k].onclick = function (e) { toggleCompare(+e.target.dataset.drop); };
  }

  // ------------------------------------------------------------------ events
  function eliteAt(px, py) {  // canvas (CSS pixel) position -> the elite shown there, or -1
    var c = Math.floor((px - L.left) / L.cs), rTop = Math.floor((py - L.top) / L.cs);
    if (c < 0 || c >= L.nx || rTop < 0 || rTop >= L.ny) return -1;
    return L.shown[(L.ny - 1 - rTop) * L.nx + c];
  }
  var lastClick = null;
  function onClick(e) {
    var t0 = performance.now();
    var b = canvas.getBoundingClientRect();
    var i = eliteAt(e.clientX - b.left, e.clientY - b.top);
    if (i < 0) return;
    if (e.shiftKey || e.ctrlKey || e.metaKey) { toggleCompare(i); return; }
    select(i);
    void card.offsetHeight;  // the card laid out
    var t1 = performance.now();
    lastClick = {elite: i, handler_ms: t1 - t0, since_event_ms: t1 - e.timeStamp, frame_ms: null};
    var rec = lastClick;
    requestAnimationFrame(function () { setTimeout(function () { rec.frame_ms = performance.now() - t0; }, 0); });
  }
  function select(i) { S.selected = i; draw(); showCard(i); }

  // ------------------------------------------------------------------ the page
  function option(value, text, selected) {
    return '<option value="' + esc(value) + '"' + (selected ? " selected" : "") + '>' + esc(text) + '</option>';
  }
  function build() {
    var body = document.body, h = "";
    h += '<h1>' + esc(D.title) + '</h1><p class="headline" id="headline">' + esc(D.headline) + '</p>' +
      '<p class="small">' + N + ' elites of the ' + esc(D.game) + ' run ' + esc(D.run) + '. Win rates and features come from ' +
      esc(D.sources.evolved) + (D.validated ? '; held-out values from ' + esc(D.sources.held) : '') +
      '. Click a cell for its elite; Shift- or Ctrl-click to compare elites side by side.</p>';
    h += '<div id="controls"><label>x <select id="sel-x">' + AX.map(function (a, k) { return option(k, a.name, k === S.x); }).join("") +
      '</select></label>';
    h += '<label>y <select id="sel-y">' + (DIM < 2 ? option(-1, MISSING, true) : "") +
      AX.map(function (a, k) { return option(k, a.name, k === S.y); }).join("") + '</select></label>';
    var groups = {q: "", f: "", w: ""};
    FIELDS.forEach(function (f) {
      var g = f.weight ? "w" : f.key.indexOf("f:") === 0 ? "f" : "q";
      groups[g] += option(f.key, f.label, f.key === S.field);
    });
    h += '<label>colour <select id="sel-field"><optgroup label="quality">' + groups.q + '</optgroup>' +
      (groups.f ? '<optgroup label="features">' + groups.f + '</optgroup>' : '') +
      (groups.w ? '<optgroup label="script weights">' + groups.w + '</optgroup>' : '') + '</select></label>';
    h += '<fieldset id="views"><span>view</span><label><input type="radio" name="view" value="evolved" id="view-evolved" checked> evolved</label>' +
      '<label><input type="radio" name="view" value="held" id="view-held"' + (D.validated ? "" : " disabled") + '> held out</label>' +
      (D.validated ? "" : '<span class="note" id="held-note">not validated: <code>playstyles validate ' + esc(D.where) + '</code> replays the elites on held-out levels</span>') +
      '</fieldset></div>';
    h += '<div id="main"><div id="mapbox"><canvas id="map"></canvas><div id="legend"></div></div>' +
      '<div id="card" class="empty">' + (N ? "Click a cell to see its elite." : "The archive has no elite yet.") +
      '</div></div><section id="compare"></section>' + versusSection();
    body.insertAdjacentHTML("beforeend", h);
    canvas = document.getElementById("map");
    ctx = canvas.getContext("2d");
    legendBox = document.getElementById("legend");
    card = document.getElementById("card");
    compareBox = document.getElementById("compare");
    versusImages();
    canvas.addEventListener("click", onClick);
    document.getElementById("sel-x").onchange = function (e) { axis("x", +e.target.value); };
    document.getElementById("sel-y").onchange = function (e) { axis("y", +e.target.value); };
    document.getElementById("sel-field").onchange = function (e) { S.field = e.target.value; draw(); };
    var radios = document.querySelectorAll('input[name="view"]');
    for (var k = 0; k < radios.length; k++) radios[k].onchange = function (e) { setView(e.target.value); };
  }
  function axis(which, k) {  // choosing the other axis's feature swaps the two
    var other = which === "x" ? "y" : "x";
    if (S[other] === k) S[other] = S[which];
    S[which] = k;
    document.getElementById("sel-x").value = String(S.x);
    document.getElementById("sel-y").value = String(S.y);
    draw();
    if (S.selected >= 0) showCard(S.selected);
  }
  function setView(v) {
    if (v === "held" && !D.validated) return false;
    S.view = v;
    document.getElementById("view-" + v).checked = true;
    draw();
    if (S.selected >= 0) showCard(S.selected);
    return true;
  }

  build();
  draw();
  // what tests and the benchmark read: the layout, and the timing of the last click
  window.explorer = {
    data: D,
    eliteIndex: function (cell) { return C.cell.indexOf(cell); },
    cellCenter: function (i) {  // viewport position of elite i's cell, or null when not shown
      var p = cellOf(i);
      if (!p || L.shown[p[1] * L.nx + p[0]] !== i) return null;
      var q = cellRect(p[0], p[1]), b = canvas.getBoundingClientRect();
      return {x: b.left + q[0] + q[2] / 2, y: b.top + q[1] + q[3] / 2};
    },
    shownElites: function () { return Array.prototype.filter.call(L.shown, function (i) { return i >= 0; }); },
    setView: setView,
    select: select,
    lastClick: function () { return lastClick; },
    state: function () { return {view: S.view, x: S.x, y: S.y, field: S.field, selected: S.selected, compare: S.compare.slice()}; }
  };
  performance.mark("explorer-ready");
  document.documentElement.dataset.ready = "1";
})();
