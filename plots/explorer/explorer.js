/* The archive explorer (plots/explorer): draws the archive of one run from the JSON blob
   embedded in the page, and shows an elite's card on a click. No library, nothing fetched. */
(function () {
  "use strict";
  function unpack(X) {  // text columns written once per value (pack_columns in plots/explorer)
    Object.keys(X.packed || {}).forEach(function (k) {
      var values = X.packed[k], c = X.cols[k];
      for (var i = 0; i < c.length; i++) c[i] = values[c[i]];
    });
    delete X.packed;
    return X;
  }
  var D = unpack(JSON.parse(document.getElementById("explorer-data").textContent));
  var N = D.n, AX = D.axes, DIM = AX.length, C = D.cols;
  var MISSING = "\u2014";  // shown where a run lacks a value

  // ------------------------------------------------------------------ formatting
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }
  function ok(v) { return v !== null && v !== undefined && isFinite(v); }
  // One rounding rule with report.html (plots/numbers.py): half to even on the float's exact
  // value, as Python's format does; toFixed alone rounds an exact tie away from zero.
  function fixedEven(x, d) {
    var s = x.toFixed(d), more = Math.min(100, d + 30), e = x.toFixed(more);
    var cut = e.length - (more - d), rest = e.slice(cut);
    if (/^50*$/.test(rest)) {  // an exact tie: keep the truncated digits when they end even
      var t = e.slice(0, cut).replace(/\.$/, "");
      if (+t.charAt(t.length - 1) % 2 === 0) s = t;
    }
    return s;
  }
  function pct(v) { return ok(v) ? fixedEven(100 * v, 1) + "%" : MISSING; }
  function num(v) {  // three significant digits, whole from 1000 up, never an exponent
    if (!ok(v)) return MISSING;
    if (v === 0) return "0";
    if (Math.abs(v) >= 1000) return fixedEven(v, 0);
    var s = fixedEven(v, 2 - Math.floor(Math.log10(Math.abs(v))));
    if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s === "-0" ? "0" : s;
  }
  function games(n) { return ok(n) ? String(Math.round(n)) : MISSING; }
  var FEW = "too few games";
  // a 95% interval: clipped to the feature's declared range (never past the value itself),
  // and "too few games" below D.min_games games
  function interval(lo, hi, f, n, name, v) {
    if (ok(n) && n < D.min_games) return FEW + " (" + games(n) + ")";
    if (!(ok(lo) && ok(hi))) return MISSING;
    var r = name ? D.features[name] : null;
    if (r && ok(r.lo)) lo = Math.max(lo, ok(v) ? Math.min(r.lo, v) : r.lo);
    if (r && ok(r.hi)) hi = Math.min(hi, ok(v) ? Math.max(r.hi, v) : r.hi);
    return f(lo) + " to " + f(hi);
  }
  function words(name) {  // a feature in the plug-in's words: its description, else its name
    var r = D.features[name];
    return r && r.doc ? r.doc : name;
  }
  function named(name) {  // the words, with the name the config and the tables use
    var r = D.features[name];
    return r && r.doc ? r.doc + " (" + name + ")" : name;
  }
  // shell quoting as Python's shlex.quote: single quotes, an embedded one as '\''
  function shq(s) {
    s = String(s);
    if (s === "") return "''";
    return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
  }
  // the run directory as an absolute path: where this page lies (it is written into the run
  // directory), so that a command works from any folder; the path it was written from otherwise
  function runDir() {
    if (location.protocol === "file:") {
      var p = decodeURIComponent(location.pathname).replace(/\/[^\/]*$/, "");
      return /^\/[A-Za-z]:\//.test(p) ? p.slice(1) : p;
    }
    return D.where;
  }
  var RUN = runDir();
  var moreRead = false;
  function more() {  // the columns written after this script (LATE in plots/explorer): only a
    // card, the comparison, the filter or a colour chosen later reads them; false until the
    // browser has read them
    if (moreRead) return true;
    var el = document.getElementById("explorer-more");
    if (!el) return false;
    var M = unpack(JSON.parse(el.textContent));
    Object.keys(M.cols).forEach(function (k) { C[k] = M.cols[k]; });
    moreRead = true;
    return true;
  }
  function col(name, i) {
    var c = C[name];
    if (!c && !moreRead && more()) c = C[name];
    return c ? c[i] : null;
  }

  // ------------------------------------------------------------------ fields to colour by
  var FIELDS = [];  // {key, label, pct, evolved(i), held(i)}
  FIELDS.push({key: "win_rate", label: "win rate", pct: true,
               evolved: function (i) { return C.win_rate[i]; },
               held: function (i) { return col("v:win_rate", i); }});
  FIELDS.push({key: "mean_score", label: "mean score", pct: false,
               evolved: function (i) { return C.mean_score[i]; },
               held: function (i) { return col("v:mean_score", i); }});
  D.stats.forEach(function (f) {
    FIELDS.push({key: "f:" + f, label: named(f) + ", mean over games", name: f, pct: false,
                 evolved: function (i) { return col("mean:" + f, i); },
                 held: function (i) { return col("v:" + f, i); }});
  });
  D.scripts.forEach(function (w) {
    FIELDS.push({key: "w:" + w, label: "weight of " + w, pct: false, weight: true,
                 evolved: function (i) { return col("w:" + w, i); },
                 held: function (i) { return col("w:" + w, i); }});
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
           compare: [], sort: {key: "quality", dir: -1}, filter: "", all: false, cursor: null};
  var L = null;  // the layout of the current map: axes, cells, pixel geometry
  var SMALL = 12;  // cells smaller than this (pixels) get their style rings as pixels, no hatching
  var MIN_WIDTH = 400;  // the map's least width in pixels: room for a small grid's axis words

  // ------------------------------------------------------------------ colours (viridis)
  var STOPS = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142],
               [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]];
  function rgb(t) {  // [r, g, b] of t in [0, 1] on the colour scale
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    var x = t * (STOPS.length - 1), k = Math.min(STOPS.length - 2, Math.floor(x)), f = x - k;
    var a = STOPS[k], b = STOPS[k + 1];
    return [Math.round(a[0] + f * (b[0] - a[0])), Math.round(a[1] + f * (b[1] - a[1])),
            Math.round(a[2] + f * (b[2] - a[2]))];
  }
  function colour(t) { return "rgb(" + rgb(t).join(",") + ")"; }

  // ------------------------------------------------------------------ geometry
  function pos(view, i, a) {  // an elite's bin on axis a in a view (-1: not in that view)
    return view === "held" ? D.vgrid[i * DIM + a] : D.grid[i * DIM + a];
  }
  function isStyle(i) { return C.status_kind[i] === "style"; }
  function quality(view, i) {  // the value the page leads with (win rate, or mean score)
    return view === "held" ? col("v:" + QUALITY, i) : C[QUALITY][i];
  }
  function priority(view, i) {  // which elite a folded cell shows: a style that held up, then quality
    var q = quality(view, i);
    return (isStyle(i) ? 1e15 : 0) + (ok(q) ? q : -1e14);
  }
  function layout() {
    var x = S.x, y = S.y, views = D.validated ? ["evolved", "held"] : ["evolved"];
    var xlo = Infinity, xhi = -Infinity, ylo = Infinity, yhi = -Infinity;
    views.forEach(function (v) {
      var g = v === "held" ? D.vgrid : D.grid;  // (pos, read directly: 10,000 elites twice)
      for (var i = 0; i < N; i++) {
        var px = g[i * DIM + x];
        if (px < 0) continue;
        if (px < xlo) xlo = px;
        if (px > xhi) xhi = px;
        if (y >= 0) {
          var py = g[i * DIM + y];
          if (py < ylo) ylo = py;
          if (py > yhi) yhi = py;
        }
      }
    });
    if (!(xlo <= xhi)) { xlo = 0; xhi = AX[x].bins - 1; }
    if (y < 0 || !(ylo <= yhi)) { ylo = 0; yhi = y < 0 ? 0 : AX[y].bins - 1; }
    var nx = xhi - xlo + 1, ny = yhi - ylo + 1;
    var cs = Math.max(4, Math.min(96, Math.floor(620 / Math.max(nx, ny))));
    var left = 70, top = 12, bottom = 72;
    var shown = new Int32Array(nx * ny).fill(-1), count = new Int32Array(nx * ny), styles = {};
    var best = new Float64Array(nx * ny).fill(-Infinity);
    for (var i = 0; i < N; i++) {
      var cx = pos(S.view, i, x);
      if (cx < 0) continue;
      var cy = y >= 0 ? pos(S.view, i, y) : 0;
      var k = (cy - ylo) * nx + (cx - xlo);
      count[k]++;
      if (isStyle(i)) (styles[k] = styles[k] || []).push(i);
      var p = priority(S.view, i);
      if (p > best[k]) { best[k] = p; shown[k] = i; }
    }
    L = {x: x, y: y, xlo: xlo, ylo: ylo, nx: nx, ny: ny, cs: cs, left: left, top: top,
         width: Math.max(left + nx * cs + 12, MIN_WIDTH), height: top + ny * cs + bottom,
         shown: shown, count: count,
         styles: styles};
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
  var canvas, ctx, legendBox, card, compareBox, listTable;
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
  function gamesOf(view, i) { return view === "held" ? col("v:games", i) : C.games[i]; }
  function wide(i) {  // too few games, or (win rate first) a win-rate interval wider than D.wide
    var n = gamesOf(S.view, i);
    if (ok(n) && n < D.min_games) return true;
    if (QUALITY !== "win_rate") return false;
    var lo = S.view === "held" ? col("v:ci_low", i) : C.ci_low[i];
    var hi = S.view === "held" ? col("v:ci_high", i) : C.ci_high[i];
    return ok(lo) && ok(hi) && hi - lo > D.wide;
  }
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
    fillCells(vals, rg, span, dpr);
    var marks = [], hatches = [], texts = [];
    for (r = 0; r < L.ny; r++) for (c = 0; c < L.nx; c++) {
      k = r * L.nx + c;
      i = L.shown[k];
      if (i < 0) continue;
      rect = cellRect(c, r);
      var v = vals[k];
      if (L.styles[k]) marks.push([rect, L.styles[k]]);
      if (wide(i)) hatches.push(rect);
      if (cs >= 30) texts.push([rect, ok(v) ? (f.pct ? pct(v) : num(v)) : MISSING,
                                ok(v) && (v - rg[0]) / span > 0.6, f.weight ? null : gamesOf(S.view, i)]);
    }
    if (cs >= 8) {  // cell borders
      ctx.strokeStyle = "rgba(255,255,255,0.9)";
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (c = 0; c <= L.nx; c++) { ctx.moveTo(L.left + c * cs + 0.5, L.top); ctx.lineTo(L.left + c * cs + 0.5, L.top + L.ny * cs); }
      for (r = 0; r <= L.ny; r++) { ctx.moveTo(L.left, L.top + r * cs + 0.5); ctx.lineTo(L.left + L.nx * cs, L.top + r * cs + 0.5); }
      ctx.stroke();
    }
    if (hatches.length && cs >= SMALL) {
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
    var ring = Math.max(2, Math.min(7, cs / 7));
    if (marks.length && cs >= SMALL) {  // every style that held up, wherever it sits: a ring
      // (one path for all; on smaller cells fillCells writes the rings with the colours)
      ctx.save();
      ctx.beginPath();
      marks.forEach(function (m) {
        var q = m[0];
        ctx.moveTo(q[0] + 2 * ring + 2, q[1] + ring + 2);
        ctx.arc(q[0] + ring + 2, q[1] + ring + 2, ring, 0, 2 * Math.PI);
      });
      ctx.fillStyle = "#fff";
      ctx.fill();
      ctx.lineWidth = Math.max(1.5, ring / 2.5);
      ctx.strokeStyle = "#b8005c";
      ctx.stroke();
      ctx.restore();
    }
    if (cs >= 36) marks.forEach(function (m) {  // and, where there is room, the style numbers
      var q = m[0];
      ctx.save();
      ctx.font = "bold 10px system-ui,sans-serif";
      ctx.textAlign = "left";
      ctx.textBaseline = "middle";
      ctx.fillStyle = "#b8005c";
      ctx.lineWidth = 3;
      ctx.strokeStyle = "rgba(255,255,255,0.9)";
      var t = m[1].map(function (j) { return "#" + Math.round(col("style", j)); }).join(" ");
      ctx.strokeText(t, q[0] + 2 * ring + 5, q[1] + ring + 2);
      ctx.fillText(t, q[0] + 2 * ring + 5, q[1] + ring + 2);
      ctx.restore();
    });
    if (texts.length) {
      ctx.font = Math.min(13, Math.floor(cs / 3.2)) + "px system-ui,sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.lineWidth = 3;
      ctx.lineJoin = "round";
      texts.forEach(function (t) {  // outlined, so that hatching does not hide the value
        var two = cs >= 44 && ok(t[3]), y = t[0][1] + cs / 2 + (two ? -6 : 0);
        ctx.strokeStyle = t[2] ? "rgba(255,255,255,0.8)" : "rgba(0,0,0,0.6)";
        ctx.fillStyle = t[2] ? "#111" : "#fff";
        ctx.strokeText(t[1], t[0][0] + cs / 2, y);
        ctx.fillText(t[1], t[0][0] + cs / 2, y);
        if (two) {  // the games behind the value
          ctx.strokeText(games(t[3]) + " g", t[0][0] + cs / 2, y + 13);
          ctx.fillText(games(t[3]) + " g", t[0][0] + cs / 2, y + 13);
        }
      });
    }
    axesText();
    legend(f, rg);
    canvas.dataset.cells = String(L.nx * L.ny);
  }
  function fillCells(vals, rg, span, dpr) {  // every cell's colour, written pixel by pixel
    // (one image instead of a rectangle per cell: a map of 10,000 cells draws in a few ms)
    var W = Math.round(L.nx * L.cs * dpr), H = Math.round(L.ny * L.cs * dpr);
    var img = ctx.createImageData(W, H), px = img.data, c, r, y;
    var words = new Uint32Array(px.buffer), probe = new Uint8Array(new Uint32Array([1]).buffer);
    function word(q) {  // one pixel as a 32-bit word in the machine's byte order
      return probe[0] === 1 ? ((255 << 24) | (q[2] << 16) | (q[1] << 8) | q[0]) >>> 0
                            : ((q[0] << 24) | (q[1] << 16) | (q[2] << 8) | 255) >>> 0;
    }
    words.fill(word([241, 241, 241]));
    for (r = 0; r < L.ny; r++) for (c = 0; c < L.nx; c++) {
      var k = r * L.nx + c;
      if (L.shown[k] < 0) continue;
      var v = vals[k], w = word(ok(v) ? rgb((v - rg[0]) / span) : [200, 200, 200]);
      var x0 = Math.round(c * L.cs * dpr), x1 = Math.round((c + 1) * L.cs * dpr);
      var y0 = Math.round((L.ny - 1 - r) * L.cs * dpr), y1 = Math.round((L.ny - r) * L.cs * dpr);
      for (y = y0; y < y1; y++) words.fill(w, y * W + x0, y * W + x1);
      if (L.cs < SMALL && L.styles[k]) ringPixels(px, W, x0 + Math.round(2 * dpr), y0 + Math.round(2 * dpr),
                                                   Math.max(3, Math.round(2 * Math.max(2, L.cs / 7) * dpr)));
    }
    ctx.putImageData(img, Math.round(L.left * dpr), Math.round(L.top * dpr));
  }
  function ringPixels(px, W, x0, y0, m) {  // a small ring: a square of the mark's colour, white inside
    for (var y = y0; y < y0 + m; y++) for (var x = x0; x < x0 + m; x++) {
      var o = (y * W + x) * 4, edge = y === y0 || x === x0 || y === y0 + m - 1 || x === x0 + m - 1;
      if (o < 0 || o >= px.length) continue;
      px[o] = edge ? 184 : 255; px[o + 1] = edge ? 0 : 255; px[o + 2] = edge ? 92 : 255;
    }
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
    if (S.cursor && document.activeElement === canvas && S.cursor[0] < L.nx && S.cursor[1] < L.ny) {
      var cq = cellRect(S.cursor[0], S.cursor[1]);  // the keyboard's cell: dashed
      ctx.save();
      ctx.setLineDash([4, 3]);
      ctx.strokeStyle = "#000";
      ctx.lineWidth = 2;
      ctx.strokeRect(cq[0] - 1, cq[1] - 1, cq[2] + 2, cq[3] + 2);
      ctx.restore();
    }
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
    var room = L.width - L.left - 4, label = fit(named(ax.name), room);  // the canvas's right end
    if (ctx.measureText(label).width <= L.nx * cs) {
      ctx.fillText(label, L.left + L.nx * cs / 2, yb + 18);
    } else {  // wider than the grid: from its left edge
      ctx.textAlign = "left";
      ctx.fillText(label, L.left, yb + 18);
    }
    var wx = D.features[ax.name] && D.features[ax.name].words;
    if (wx && wx.length === 3) {  // the low and high ends in the plug-in's words
      ctx.font = "italic 11px system-ui,sans-serif";
      ctx.fillStyle = "#555";
      ctx.textAlign = "left";
      var lo = fit("\u2190 " + wx[0], room / 2 - 8), hi = fit(wx[2] + " \u2192", room / 2 - 8);
      var apart = ctx.measureText(lo).width + 16 + ctx.measureText(hi).width <= L.nx * cs;
      ctx.fillText(lo, L.left, yb + 36);  // under the grid's ends, or side by side past it
      ctx.textAlign = apart ? "right" : "left";
      ctx.fillText(hi, apart ? L.left + L.nx * cs : L.left + ctx.measureText(lo).width + 16, yb + 36);
      ctx.fillStyle = "#333";
    }
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
      var wy = D.features[ay.name] && D.features[ay.name].words;
      ctx.fillText(fit(named(ay.name) + (wy && wy.length === 3 ? ": " + wy[0] + " \u2192 " + wy[2] : ""),
                       L.ny * cs + 2 * L.top - 4), 0, 0);  // centred on the grid, within the canvas
      ctx.restore();
    }
  }
  function edge(a, b) { return String(Number((a.lo + b * a.width).toPrecision(4))); }
  function fit(s, px) {  // the text in the current font, shortened with an ellipsis to px wide
    if (ctx.measureText(s).width <= px) return s;
    var lo = 0, hi = s.length;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (ctx.measureText(s.slice(0, mid) + "\u2026").width <= px) lo = mid; else hi = mid - 1;
    }
    return s.slice(0, lo) + "\u2026";
  }
  function legend(f, rg) {
    var src = S.view === "held" && !f.weight ? D.sources.held : D.sources.evolved;
    var what = f.weight ? f.label + " (the elite's genome)" : f.label + " of each cell's elite, from " + src;
    var lo = f.pct ? pct(rg[0]) : num(rg[0]), hi = f.pct ? pct(rg[1]) : num(rg[1]);
    var h = '<div><b>Colour</b>: <span id="legend-field">' + esc(what) + '</span></div>' +
      '<div class="key">' + '<span id="legend-lo">' + esc(lo) + '</span><canvas id="legend-bar" width="180" height="12" role="img" aria-label="colour scale from ' +
      esc(lo) + ' to ' + esc(hi) + '"></canvas>' +
      '<span id="legend-hi">' + esc(hi) + '</span></div>' +
      '<span class="key"><span class="swatch" style="background:#f1f1f1"></span>no elite</span>' +
      '<span class="key"><span class="swatch" style="background:#c8c8c8"></span>no value (' + MISSING + ')</span>';
    if (D.counted) h += '<span class="key" id="legend-mark"><span class="ring"></span>' + esc(D.mark) +
      ', in whichever cell it sits (not only its cell\'s shown elite)</span>';
    else if (D.validated) h += '<span class="key note">distinct styles were not counted by this validation: no style is marked</span>';
    h += '<span class="key" id="legend-hatch">' + (L.cs >= SMALL ? 'hatched' : 'hatched when cells are drawn larger (not at this size)') +
      ': fewer than ' + D.min_games + ' games' + (QUALITY === "win_rate" && C.ci_low.some(ok) ?
      ', or the win rate\'s 95% interval is wider than ' + Math.round(100 * D.wide) + ' points' : '') + '</span>';
    if (L.cs >= 44) h += '<span class="key">"84 g": the games behind a cell\'s value</span>';
    h += '<span class="key">' + (L.count.some(function (c) { return c > 1; }) ? "a cell with several elites shows a style that held up, else the one of highest " +
      (QUALITY === "win_rate" ? "win rate" : "mean score") + " (all of them are in the table and on its card); " : "") +
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
      var v = col("w:" + w, i);
      h += '<tr><td class="l">' + esc(w) + '</td><td class="l"><span class="barbox"><span class="bar" style="width:' +
        (ok(v) ? Math.max(0, Math.min(1, v)) * 100 : 0) + '%"></span></span><span data-k="w:' + esc(w) + '">' +
        num(v) + '</span></td></tr>';
    });
    return h + '</table>';
  }
  function styleTag(i) {  // held up (style #k), not told apart from style #k / the other styles, ...
    var kind = C.status_kind[i];
    return '<span class="tag ' + (kind === "style" ? "ok" : kind === "same" ? "same" : "none") +
      '" data-k="status">' + esc(C.status[i]) + '</span>';
  }
  function qualityRows(i, key) {
    var h = "", ev = D.sources.evolved, held = D.sources.held, ctl = D.control;
    var isScore = key === "mean_score";
    var f = isScore ? num : pct;
    function row(name, src, v, lo, hi, n, k) {
      return '<tr data-source="' + k + '"><td class="l">' + esc(name) + (src !== name ? '<br><span class="small">' + esc(src) +
        '</span>' : '') + '</td><td data-k="' + key + ':' + k + '">' + f(v) + '</td><td data-k="' + key + '-ci:' + k + '">' +
        interval(lo, hi, f, n) + '</td><td data-k="games:' + k + '">' + games(n) + '</td></tr>';
    }
    if (isScore) {
      h += row(ev.split(" (")[0], ev, C.mean_score[i], null, null, C.games[i], "evolved");
      if (D.validated) h += row("held out", held, col("v:mean_score", i), col("v:score_low", i), col("v:score_high", i),
                                col("v:games", i), "held");
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
  function valueCi(key, v, lo, hi, n, name) {
    return '<span data-k="' + esc(key) + '">' + num(v) + '</span> <span class="small" data-k="' + esc(key) + '-ci">' +
      interval(lo, hi, num, n, name, v) + '</span>';
  }
  function featureRows(i) {
    var h = "";
    AX.forEach(function (a) {
      var f = a.name, m = col("mean:" + f, i), se = col("se:" + f, i);
      var elo = ok(m) && ok(se) ? m - 1.96 * se : null, ehi = ok(m) && ok(se) ? m + 1.96 * se : null;
      h += '<tr><td class="l" title="' + esc(a.label) + '">' + esc(words(f)) + (words(f) !== f ? '<br><span class="small">' + esc(f) +
        '</span>' : '') + '</td><td>' + valueCi("f:" + f + ":evolved", m, elo, ehi, C.games[i], f) + '</td>';
      if (D.validated) {
        h += '<td>' + valueCi("f:" + f + ":held", col("v:" + f, i), col("v:ci_low:" + f, i), col("v:ci_high:" + f, i),
                              col("v:games", i), f) + '</td>';
        var c = D.control && D.control.features[f];
        h += '<td>' + (c ? valueCi("f:" + f + ":control", c.mean, c.ci[0], c.ci[1], ok(c.games) ? c.games : D.control.games, f) : MISSING) + '</td>';
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
  function cellArg(cell) {  // a cell as a command's argument (one that starts with a dash is no option)
    return cell.charAt(0) === "-" ? "-- " + shq(cell) : shq(cell);
  }
  function useLine(i) {  // commands with absolute, shell-quoted paths: they work from any folder
    var cell = C.cell[i], presets = D.presets[cell] || [];
    if (presets.length) {
      return presets.map(function (p) {
        return '<pre class="code" data-k="preset">preset:' + esc(RUN + "/" + p.file + "#" + p.name) + '</pre>';
      }).join("") + '<p class="note">Wherever an agent is named: <code data-k="play">playstyles play --p1 ' +
        esc(shq("preset:" + RUN + "/" + presets[0].file + "#" + presets[0].name)) + ' --p2 human</code>.</p>';
    }
    var file = RUN + "/elite_" + cell.replace(/[^0-9A-Za-z.-]+/g, "_") + ".json";
    var cells = cell.charAt(0) === "-" ? "--cells=" + shq(cell) : "--cells " + shq(cell);
    return '<p class="note">Not in a preset file yet. Export this elite (into the run directory), then name it wherever an agent is named:</p>' +
      '<pre class="code" data-k="export">playstyles export ' + esc(shq(RUN)) + ' ' + esc(cells) + ' -o ' + esc(shq(file)) +
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
      '<code data-k="versus">playstyles versus ' + esc(shq(RUN)) + ' ' + esc(cellArg(C.cell[i])) + ' CELL</code>.' + shown + '</p>';
  }
  function others(i) {
    var p = cellOf(i);
    if (!p) return "";
    var k = p[1] * L.nx + p[0];
    if (L.count[k] < 2) return "";
    var list = [];
    for (var j = 0; j < N; j++) {
      if (j === i) continue;
      var q = cellOf(j);
      if (q && q[0] === p[0] && q[1] === p[1]) list.push(j);
    }
    var qf = QUALITY === "win_rate" ? pct : num;
    return '<div class="others small"><p>' + (L.count[k] - 1) + ' more elite' + (L.count[k] > 2 ? "s" : "") +
      ' in this cell (over the features not drawn' + (S.view === "held" ? ", or landed here on held-out levels" : "") + '):</p><ul>' +
      list.map(function (j) {
        return '<li><button type="button" class="link" data-elite="' + j + '">' + esc(C.cell[j]) + '</button> ' +
          qf(quality(S.view, j)) + ' (' + games(gamesOf(S.view, j)) + ' games), ' + esc(C.status[j]) + '</li>';
      }).join("") + '</ul></div>';
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
      h += '<p class="small" data-k="vs-control">' + (!col("distinct", i) ? "Only the styles that held up are tested against the control." :
        w === null && df === null ? "Against the control: not tested (this validation played no control)." :
        "Against the control: " + (w === null ? MISSING : w ? "non-inferior" : "not shown non-inferior") + "; " +
        (df === null ? MISSING : df ? "a feature differs by more than the minimum effect" : "no feature differs by more than the minimum effect") + ".") + '</p>';
    }
    h += '<h3>Features <span class="small">(mean over the games, its 95% interval)</span></h3><table class="features">' +
      featureHead(i) + featureRows(i) + '</table>';
    h += '<h3>Weights <span class="small">dominant: <span data-k="dominant">' + esc(col("dominant", i) || MISSING) + '</span></span></h3>' + weightBars(i);
    h += '<h3>Board images</h3>' + boards(i);
    h += '<p class="small">Found in batch ' + games(col("batch", i)) + ', evaluation ' + games(col("evaluation", i)) + '.</p>';
    card.className = "";
    card.innerHTML = h;
    document.getElementById("compare-add").onclick = function () { toggleCompare(i); };
    var links = card.querySelectorAll("button[data-elite]");
    for (var k = 0; k < links.length; k++) links[k].onclick = function (e) { select(+e.currentTarget.dataset.elite); };
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
      return pct(C.win_rate[i]) + ' <span class="small">' + interval(C.ci_low[i], C.ci_high[i], pct, C.games[i]) + ' (' + games(C.games[i]) + ')</span>';
    });
    if (D.validated) h += line("win rate, held out (games)", function (i) {
      return pct(col("v:win_rate", i)) + ' <span class="small">' + interval(col("v:ci_low", i), col("v:ci_high", i), pct, col("v:games", i)) +
        ' (' + games(col("v:games", i)) + ')</span>';
    });
    h += line("mean score, " + esc(ev) + " (games)", function (i) { return num(C.mean_score[i]) + ' <span class="small">(' + games(C.games[i]) + ')</span>'; });
    if (D.validated) h += line("mean score, held out (games)", function (i) {
      return num(col("v:mean_score", i)) + ' <span class="small">' + interval(col("v:score_low", i), col("v:score_high", i), num, col("v:games", i)) +
        ' (' + games(col("v:games", i)) + ')</span>';
    });
    AX.forEach(function (a) {
      h += line(esc(named(a.name)) + ", " + esc(ev), function (i) {
        var m = col("mean:" + a.name, i), se = col("se:" + a.name, i);
        return num(m) + ' <span class="small">' + interval(ok(se) ? m - 1.96 * se : null, ok(se) ? m + 1.96 * se : null, num, C.games[i], a.name, m) + '</span>';
      });
      if (D.validated) h += line(esc(named(a.name)) + ", held out", function (i) {
        return num(col("v:" + a.name, i)) + ' <span class="small">' +
          interval(col("v:ci_low:" + a.name, i), col("v:ci_high:" + a.name, i), num, col("v:games", i), a.name, col("v:" + a.name, i)) + '</span>';
      });
    });
    h += line("dominant scripts", function (i) { return esc(col("dominant", i) || MISSING); });
    D.scripts.forEach(function (w) {
      h += line("weight " + esc(w), function (i) {
        var v = col("w:" + w, i);
        return '<span class="barbox"><span class="bar" style="width:' + (ok(v) ? Math.max(0, Math.min(1, v)) * 100 : 0) +
          '%"></span></span>' + num(v);
      });
    });
    compareBox.innerHTML = h + '</table><p class="small">Intervals are 95%: Wilson for win rates, mean \u00b1 1.96 standard errors for ' +
      'evolved features, Student\'s t for held-out features and scores; clipped to the feature\'s declared range; not shown below ' + D.min_games + ' games.</p>';
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
  function select(i) {
    if (!more()) {  // clicked before the browser read the card's columns: open it once it has
      document.addEventListener("DOMContentLoaded", function () { select(i); }, {once: true});
      return;
    }
    S.selected = i;
    var p = cellOf(i);
    if (p) S.cursor = p;
    draw();
    showCard(i);
    markRows();
  }

  // ------------------------------------------------------------------ the table of every elite
  var LIMIT = 300;  // rows drawn before "show all" (a 10,000-elite archive stays quick)
  function columns() {  // key, head, value to sort by, text shown
    var qf = QUALITY === "win_rate" ? pct : num, qn = QUALITY === "win_rate" ? "win rate" : "mean score";
    var cols = [{key: "cell", head: "cell", value: function (i) { return C.cell[i]; }, text: function (i) { return esc(C.cell[i]); }}];
    var names = AX.map(function (a) { return a.name; }), fd = field(S.field);
    if (fd.name && names.indexOf(fd.name) < 0) names.push(fd.name);
    names.forEach(function (f) {
      cols.push({key: "f:" + f, head: words(f) + (words(f) !== f ? " (" + f + ")" : ""), num: true,
                 value: function (i) { return col("mean:" + f, i); },
                 text: function (i) { return num(col("mean:" + f, i)); }});
    });
    cols.push({key: "quality", head: qn + ", " + D.sources.evolved.split(" (")[0] + " (games)", num: true,
               value: function (i) { return C[QUALITY][i]; },
               text: function (i) { return qf(C[QUALITY][i]) + ' <span class="small">(' + games(C.games[i]) + ')</span>'; }});
    if (D.validated) cols.push({key: "held", head: qn + ", held out (games)", num: true,
               value: function (i) { return col("v:" + QUALITY, i); },
               text: function (i) { return qf(col("v:" + QUALITY, i)) + ' <span class="small">(' + games(col("v:games", i)) + ')</span>'; }});
    cols.push({key: "style", head: "style", value: function (i) { return C.style_name[i]; },
               text: function (i) { return esc(C.style_name[i]); }});
    cols.push({key: "status", head: "held up?", value: function (i) {
                 return (C.status_kind[i] === "style" ? "0" : C.status_kind[i] === "same" ? "1" : "2") + C.status[i]; },
               text: function (i) { return styleTag(i); }});
    return cols;
  }
  function rowsInOrder(cols) {
    var c = null, q = S.filter.toLowerCase(), ids = [];
    cols.forEach(function (k) { if (k.key === S.sort.key) c = k; });
    if (!c) { c = cols[0]; S.sort = {key: c.key, dir: 1}; }
    for (var i = 0; i < N; i++) {
      if (q && (C.cell[i] + " " + C.style_name[i] + " " + C.status[i] + " " + (col("dominant", i) || "")).toLowerCase().indexOf(q) < 0) continue;
      ids.push(i);
    }
    var dir = S.sort.dir, vals = new Array(N), miss = new Uint8Array(N);
    ids.forEach(function (i) {
      var v = vals[i] = c.value(i);
      miss[i] = c.num ? !ok(v) : v === null || v === undefined;
    });
    ids.sort(function (a, b) {  // missing values last, either way
      var va = vals[a], vb = vals[b], ma = miss[a], mb = miss[b];
      if (ma || mb) return ma === mb ? a - b : (ma ? 1 : -1);
      if (va < vb) return -dir;
      if (va > vb) return dir;
      return a - b;
    });
    return ids;
  }
  function renderList() {
    var cols = columns(), ids = rowsInOrder(cols), shown = S.all ? ids : ids.slice(0, LIMIT);
    var h = '<thead><tr>' + cols.map(function (c) {
      var on = c.key === S.sort.key;
      return '<th scope="col" class="' + (c.num ? "" : "l") + '" aria-sort="' + (on ? (S.sort.dir > 0 ? "ascending" : "descending") : "none") +
        '"><button type="button" class="sort" data-sort="' + esc(c.key) + '">' + esc(c.head) + (on ? (S.sort.dir > 0 ? " \u25b2" : " \u25bc") : "") +
        '</button></th>';
    }).join("") + '</tr></thead><tbody>';
    shown.forEach(function (i) {
      h += '<tr data-elite="' + i + '">' + cols.map(function (c, n) {
        var t = c.text(i);
        return n === 0 ? '<th scope="row" class="l"><button type="button" class="link" data-elite="' + i + '">' + t + '</button></th>' :
          '<td class="' + (c.num ? "" : "l") + '">' + t + '</td>';
      }).join("") + '</tr>';
    });
    listTable.innerHTML = h + '</tbody>';
    document.getElementById("list-count").textContent = ids.length === N ? N + " elites" : ids.length + " of " + N + " elites";
    var more = document.getElementById("list-more");
    more.hidden = shown.length >= ids.length;
    more.textContent = "show all " + ids.length + " rows";
    markRows();
  }
  function markRows() {  // the selected elite's row, and every row of the elites in its map cell
    var p = S.selected >= 0 ? cellOf(S.selected) : null, rows = listTable.querySelectorAll("tbody tr"), first = null;
    for (var k = 0; k < rows.length; k++) {
      var j = +rows[k].dataset.elite, q = p ? cellOf(j) : null;
      var here = !!(q && q[0] === p[0] && q[1] === p[1]);
      rows[k].classList.toggle("here", here);
      rows[k].classList.toggle("sel", j === S.selected);
      if (j === S.selected) rows[k].setAttribute("aria-current", "true"); else rows[k].removeAttribute("aria-current");
      if (here && !first) first = rows[k];
    }
    var box = document.getElementById("list-box");
    if (first && box) {  // scroll the table (not the page) to the cell's rows
      var top = first.offsetTop - box.querySelector("thead").offsetHeight;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - 30) box.scrollTop = Math.max(0, top);
    }
  }
  function onListClick(e) {
    var b = e.target.closest("button[data-sort]");
    if (b) {
      var key = b.dataset.sort;
      S.sort = {key: key, dir: S.sort.key === key ? -S.sort.dir : (key === "cell" || key === "style" || key === "status" ? 1 : -1)};
      renderList();
      var again = listTable.querySelector('button[data-sort="' + key + '"]');
      if (again) again.focus();
      return;
    }
    var r = e.target.closest("tr[data-elite]");
    if (r) {
      if (e.shiftKey || e.ctrlKey || e.metaKey) { toggleCompare(+r.dataset.elite); return; }
      select(+r.dataset.elite);
    }
  }

  // ------------------------------------------------------------------ the keyboard
  function announce(t) { document.getElementById("map-status").textContent = t; }
  function cellText(c, r) {
    var k = r * L.nx + c, i = L.shown[k], ax = AX[L.x], h = named(ax.name) + " " + edge(ax, L.xlo + c) + " to " + edge(ax, L.xlo + c + 1);
    if (L.y >= 0) { var ay = AX[L.y]; h += ", " + named(ay.name) + " " + edge(ay, L.ylo + r) + " to " + edge(ay, L.ylo + r + 1); }
    if (i < 0) return h + ": no elite";
    var qf = QUALITY === "win_rate" ? pct : num;
    return h + ": elite " + C.cell[i] + ", " + (QUALITY === "win_rate" ? "win rate " : "mean score ") + qf(quality(S.view, i)) +
      " (" + games(gamesOf(S.view, i)) + " games), " + C.status[i] + (L.count[k] > 1 ? "; " + L.count[k] + " elites in this cell" : "") +
      ". Enter opens its card.";
  }
  function onKey(e) {
    var moves = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1]};
    if (!S.cursor) S.cursor = firstCell();
    if (!S.cursor) return;
    if (moves[e.key]) {
      var m = moves[e.key];
      S.cursor = [Math.max(0, Math.min(L.nx - 1, S.cursor[0] + m[0])), Math.max(0, Math.min(L.ny - 1, S.cursor[1] + m[1]))];
      e.preventDefault();
      draw();
      announce(cellText(S.cursor[0], S.cursor[1]));
    } else if (e.key === "Enter" || e.key === " ") {
      var i = L.shown[S.cursor[1] * L.nx + S.cursor[0]];
      e.preventDefault();
      if (i < 0) { announce("no elite in this cell"); return; }
      if (e.shiftKey) { toggleCompare(i); return; }
      select(i);
      announce("card of elite " + C.cell[i] + " opened beside the map");
    }
  }
  function firstCell() {  // the selected elite's cell, else the first cell with an elite
    if (S.selected >= 0 && cellOf(S.selected)) return cellOf(S.selected);
    for (var r = L.ny - 1; r >= 0; r--) for (var c = 0; c < L.nx; c++) if (L.shown[r * L.nx + c] >= 0) return [c, r];
    return null;
  }
  function onFocus() {
    if (!S.cursor) S.cursor = firstCell();
    draw();
    if (S.cursor) announce(cellText(S.cursor[0], S.cursor[1]));
  }

  // ------------------------------------------------------------------ the page
  function option(value, text, selected) {
    return '<option value="' + esc(value) + '"' + (selected ? " selected" : "") + '>' + esc(text) + '</option>';
  }
  function build() {
    var body = document.body, h = "";
    h += '<h1>' + esc(D.title) + '</h1><p class="headline" id="headline">' + esc(D.headline) + '</p>' +
      '<p class="small">' + N + ' elites of the ' + esc(D.game) + ' run ' + esc(D.run) + '. Win rates and features come from ' +
      esc(D.sources.evolved) + (D.validated ? '; held-out values from ' + esc(D.sources.held) : '') +
      '. Click a cell (or a row of the table) for its elite; Shift- or Ctrl-click to compare elites side by side. ' +
      'From the keyboard: Tab to the map, arrow keys move between cells, Enter opens the card.</p>';
    h += '<div id="controls"><label>x <select id="sel-x">' + AX.map(function (a, k) { return option(k, named(a.name), k === S.x); }).join("") +
      '</select></label>';
    h += '<label>y <select id="sel-y">' + (DIM < 2 ? option(-1, MISSING, true) : "") +
      AX.map(function (a, k) { return option(k, named(a.name), k === S.y); }).join("") + '</select></label>';
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
      (D.validated ? "" : '<span class="note" id="held-note">not validated: <code>playstyles validate ' + esc(shq(RUN)) + '</code> replays the elites on held-out levels</span>') +
      '</fieldset></div>';
    h += '<div id="main"><div id="mapbox"><canvas id="map" tabindex="0" role="application" aria-roledescription="archive map" ' +
      'aria-label="The archive map: arrow keys move between cells, Enter opens the elite\'s card" aria-describedby="list-caption">' +
      '</canvas><div id="map-status" class="sr" aria-live="polite"></div><div id="legend"></div></div>' +
      '<div id="card" class="empty">' + (N ? "Click a cell to see its elite." : "The archive has no elite yet.") + '</div>' +
      '<section id="list"><h2 id="list-caption">Every elite <span class="small" id="list-count"></span></h2>' +
      '<p class="small">The map as a table: a row opens the elite\'s card; a column head sorts by it; a cell chosen on the map ' +
      'marks its rows.</p><label class="small">filter <input type="search" id="filter" placeholder="cell, style, held up?" ' +
      'aria-controls="elites"></label><div id="list-box"><table id="elites" aria-labelledby="list-caption"></table></div>' +
      '<button type="button" id="list-more" hidden></button></section>' +
      '</div><section id="compare"></section>' + versusSection();
    body.insertAdjacentHTML("beforeend", "<main>" + h + "</main>");
    canvas = document.getElementById("map");
    ctx = canvas.getContext("2d");
    legendBox = document.getElementById("legend");
    card = document.getElementById("card");
    compareBox = document.getElementById("compare");
    listTable = document.getElementById("elites");
    versusImages();
    canvas.addEventListener("click", onClick);
    canvas.addEventListener("keydown", onKey);
    canvas.addEventListener("focus", onFocus);
    canvas.addEventListener("blur", function () { draw(); });
    listTable.addEventListener("click", onListClick);
    document.getElementById("filter").addEventListener("input", function (e) { S.filter = e.target.value; renderList(); });
    document.getElementById("list-more").onclick = function () { S.all = true; renderList(); };
    document.getElementById("sel-x").onchange = function (e) { axis("x", +e.target.value); };
    document.getElementById("sel-y").onchange = function (e) { axis("y", +e.target.value); };
    document.getElementById("sel-field").onchange = function (e) { S.field = e.target.value; draw(); renderList(); };
    var radios = document.querySelectorAll('input[name="view"]');
    for (var k = 0; k < radios.length; k++) radios[k].onchange = function (e) { setView(e.target.value); };
  }
  function axis(which, k) {  // choosing the other axis's feature swaps the two
    var other = which === "x" ? "y" : "x";
    if (S[other] === k) S[other] = S[which];
    S[which] = k;
    document.getElementById("sel-x").value = String(S.x);
    document.getElementById("sel-y").value = String(S.y);
    S.cursor = null;
    draw();
    markRows();
    if (S.selected >= 0) showCard(S.selected);
  }
  function setView(v) {
    if (v === "held" && !D.validated) return false;
    S.view = v;
    document.getElementById("view-" + v).checked = true;
    S.cursor = null;
    draw();
    markRows();
    if (S.selected >= 0) showCard(S.selected);
    return true;
  }

  build();
  draw();
  renderList();
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
    markedElites: function () {  // the styles that held up marked on the map, wherever they sit
      var out = [];
      Object.keys(L.styles).forEach(function (k) { out = out.concat(L.styles[k]); });
      return out.sort(function (a, b) { return a - b; });
    },
    shownElites: function () { return Array.prototype.filter.call(L.shown, function (i) { return i >= 0; }); },
    setView: setView,
    format: {pct: pct, num: num, shq: shq, interval: interval},
    runDir: function () { return RUN; },
    select: select,
    lastClick: function () { return lastClick; },
    state: function () { return {view: S.view, x: S.x, y: S.y, field: S.field, selected: S.selected, compare: S.compare.slice()}; }
  };
  performance.mark("explorer-ready");  // the map and the table drawn
  function ready() { more(); document.documentElement.dataset.ready = "1"; }  // every column read
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
