'use strict';
(function () {
  // How much the page keeps: the state of at most this many events (the newest).
  const MAX_EVENTS = 100000;
  const MAX_TRACES = 200;
  const MAX_NAV = 500;
  const SHOWN_NAV = 80;
  const MAX_BODY = 200000;
  const PREVIEW_LINES = 6;

  const $ = (id) => document.getElementById(id);
  const token = new URLSearchParams(location.search).get('token') || '';

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmtMs(x) {
    if (typeof x !== 'number' || !isFinite(x)) return '';
    if (x < 100) return x.toFixed(1) + ' ms';
    if (x < 10000) return Math.round(x) + ' ms';
    return (x / 1000).toFixed(1) + ' s';
  }
  function fmtBytes(b) {
    if (typeof b !== 'number' || !isFinite(b)) return '';
    if (b < 10000) return b + ' B';
    if (b < 10000000) return (b / 1024).toFixed(1) + ' kB';
    return (b / 1048576).toFixed(1) + ' MB';
  }
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }
  function cap(s) {
    if (typeof s !== 'string') return s;
    return s.length > MAX_BODY ? s.slice(0, MAX_BODY) + '\n… (' + (s.length - MAX_BODY) + ' more characters)' : s;
  }

  // ---------------------------------------------------------------- state
  let S = null;
  function freshState() {
    return {
      lastSeq: 0,
      firstSeq: 0,
      missed: 0,
      eventCount: 0,
      gap: false,
      commands: [],          // the session, oldest first
      cmdByN: new Map(),     // command number -> command
      links: new Map(),      // command number -> what it touched
      nav: [],               // navigation changes, oldest first
      net: [],               // network list: exchanges and burst headers, oldest first
      exch: new Map(),       // exchange id -> exchange
      requestCount: 0,
      burst: null,           // the burst being grouped
      latestBurst: null,
      panels: Object.create(null),  // panel name -> newest panel event
      traces: new Map(),     // command number -> trace panel event, oldest first
      lastN: 0,
      lastLine: '',
      lastDs: null,
      dsHistory: [],
      factoryLast: null
    };
  }
  function linksOf(n) {
    let l = S.links.get(n);
    if (!l) {
      l = { products: new Set(), rows: new Set(), sections: new Set(), all: false, components: new Set() };
      S.links.set(n, l);
    }
    return l;
  }

  // What is selected: null, {kind: 'command', n} or {kind: 'component', name}.
  let sel = null;
  let selVersion = 1;
  let tracePinned = null;   // command number whose trace is shown, null for the latest
  let openReq = null;       // the exchange whose details are open

  // ---------------------------------------------------------------- rendering schedule
  const dirty = new Set();
  let scheduled = false;
  function mark(what) {
    dirty.add(what);
    if (!scheduled) { scheduled = true; requestAnimationFrame(frame); }
  }
  function markAll() {
    ['header', 'session', 'net', 'nav', 'burst', 'detail', 'traces', 'links', 'ds', 'factory',
      'p:coordinators', 'p:screen', 'p:factories', 'p:datasource', 'trace'].forEach(mark);
  }

  // ---------------------------------------------------------------- step mode
  // archsh --step: the narration, the step and its chapter, and the one thing the page may
  // ask archsh to do: run the step shown (Next) or go back one (Back).
  function showStep(e) {
    const bar = document.getElementById('step-bar');
    bar.hidden = false;
    const ended = e.state === 'ended';
    document.getElementById('step-where').textContent = ended
      ? 'The end of the walkthrough'
      : 'Step ' + e.number + ' of ' + e.total + (e.chapter ? ' · ' + e.chapter : '') +
        (e.state === 'running' ? ' · running' : '');
    document.getElementById('step-narration').textContent =
      ended ? '' : (Array.isArray(e.narration) ? e.narration.join(' ') : '');
    document.getElementById('step-lines').textContent =
      ended ? '' : (Array.isArray(e.lines) ? e.lines.map((l) => 'archsh> ' + l).join('\n') : '');
    document.getElementById('step-next').disabled = e.state !== 'waiting';
    document.getElementById('step-back').disabled = e.state !== 'waiting' || e.number <= 1;
  }
  function stepAction(action) {
    document.getElementById('step-next').disabled = true;
    document.getElementById('step-back').disabled = true;
    fetch('/step?token=' + encodeURIComponent(token) + '&action=' + action, { method: 'POST' })
      .catch(() => {});
  }
  document.getElementById('step-next').addEventListener('click', () => stepAction('next'));
  document.getElementById('step-back').addEventListener('click', () => stepAction('back'));

  // ---------------------------------------------------------------- exercises
  // learn start: the goal, the hints asked for, and a mark when archsh finds the goal met.
  function showGoal(e) {
    const bar = document.getElementById('goal-bar');
    bar.hidden = e.state === 'ended';
    bar.classList.toggle('met', e.met === true);
    document.getElementById('goal-where').textContent =
      (e.met ? '✓ Goal met · ' : 'Exercise · ') + e.title + ' · ' + e.seed;
    document.getElementById('goal-text').textContent = e.goal;
    const hints = document.getElementById('goal-hints');
    hints.textContent = '';
    (Array.isArray(e.hints) ? e.hints : []).forEach((hint) => {
      const item = document.createElement('li');
      item.textContent = hint;
      hints.appendChild(item);
    });
  }

  // ---------------------------------------------------------------- applying events
  function apply(e) {
    if (!e || typeof e !== 'object') return;
    const seq = typeof e.seq === 'number' ? e.seq : 0;
    if (seq) {
      if (seq <= S.lastSeq) return;   // already applied (a resumed stream may repeat)
      S.lastSeq = seq;
      if (!S.firstSeq) S.firstSeq = seq;
    }
    S.eventCount++;
    const n = typeof e.command === 'number' ? e.command : 0;
    switch (e.kind) {
      case 'command': applyCommand(e, n, seq); break;
      case 'factory': {
        if (e.product) linksOf(n).products.add(e.product);
        let f = S.factoryLast;
        if (!f || f.command !== n) f = S.factoryLast = { command: n, built: new Set(), reused: new Set() };
        (e.built === false ? f.reused : f.built).add(e.product || '?');
        mark('factory');
        break;
      }
      case 'navigation': {
        S.nav.push({ seq, command: n, component: e.component || '', text: e.text || '', change: e.change || 'other' });
        if (S.nav.length > MAX_NAV + 100) S.nav.splice(0, S.nav.length - MAX_NAV);
        if (e.component) linksOf(n).components.add(e.component);
        mark('nav');
        break;
      }
      case 'datasource': {
        const l = linksOf(n);
        if (Array.isArray(e.rows)) for (const r of e.rows) l.rows.add(String(r));
        if (typeof e.section === 'number') l.sections.add(e.section);
        if (e.all) l.all = true;
        S.lastDs = e;
        S.dsHistory.push(e);
        if (S.dsHistory.length > 40) S.dsHistory.splice(0, S.dsHistory.length - 20);
        mark('ds');
        break;
      }
      case 'http': applyHTTP(e, n, seq); break;
      case 'step': showStep(e); break;
      case 'goal': showGoal(e); break;
      case 'panel': {
        const name = e.panel;
        if (name === 'trace') {
          S.traces.delete(n);
          S.traces.set(n, e);
          if (S.traces.size > MAX_TRACES) S.traces.delete(S.traces.keys().next().value);
          mark('traces');
          mark('trace');
        } else if (name) {
          S.panels[name] = e;
          mark('p:' + name);
        }
        break;
      }
      default: break;   // span, store, log and kinds added later: nothing shown for them
    }
    if ((S.eventCount & 255) === 0) mark('header');
  }

  function applyCommand(e, n, seq) {
    let c = S.cmdByN.get(n);
    if (!c) {
      c = { n, seq, line: '', origin: '', began: null, ended: null, ok: null, out: '', lines: 0, open: false, v: 1 };
      S.cmdByN.set(n, c);
      S.commands.push(c);
    }
    if (typeof e.line === 'string') c.line = e.line;
    if (typeof e.origin === 'string') c.origin = e.origin;
    if (e.phase === 'began') {
      c.began = e.ms;
      S.lastN = n;
      S.lastLine = c.line;
      mark('header');
    } else if (e.phase === 'ended') {
      c.ended = e.ms;
      c.ok = e.ok !== false;
      let out = typeof e.output === 'string' ? e.output : '';
      if (out.endsWith('\n')) out = out.slice(0, -1);
      c.out = cap(out);
      c.lines = c.out === '' ? 0 : c.out.split('\n').length;
      if (S.lastN === n) mark('header');
    }
    c.v++;
    sessionList.changed(c);
    mark('session');
  }

  function applyHTTP(e, n, seq) {
    const id = e.id === undefined || e.id === null ? 'seq' + seq : String(e.id);
    let x = S.exch.get(id);
    if (!x) {
      x = {
        t: 'x', id, seq, command: n, method: e.method || '', url: e.url || '', path: e.path || e.url || '',
        role: e.role || 'request', sender: e.sender || '', status: null, bytes: null, duration: null,
        reqHeaders: [], reqBody: null, resHeaders: [], resBody: null, error: null,
        answered: false, sentMs: e.ms, ms: e.ms, burst: null, part: null, v: 1
      };
      S.exch.set(id, x);
      S.net.push(x);
      S.requestCount++;
      joinBurstOnStart(x);
    }
    if (e.method) x.method = e.method;
    if (e.url) x.url = e.url;
    if (e.path) x.path = e.path;
    if (e.role) x.role = e.role;
    if (e.sender) x.sender = e.sender;
    if (Array.isArray(e.request_headers)) x.reqHeaders = e.request_headers;
    if (e.request_body !== undefined && e.request_body !== null) x.reqBody = cap(e.request_body);
    if (e.phase === 'answered') {
      x.answered = true;
      x.ms = e.ms;
      x.status = typeof e.status === 'number' ? e.status : null;
      if (typeof e.bytes === 'number') x.bytes = e.bytes;
      if (typeof e.duration_ms === 'number') x.duration = e.duration_ms;
      if (Array.isArray(e.response_headers)) x.resHeaders = e.response_headers;
      if (e.response_body !== undefined) x.resBody = e.response_body === null ? null : cap(e.response_body);
      if (e.error !== undefined) x.error = e.error;
      joinBurstOnAnswer(x);
    }
    x.v++;
    mark('net');
    if (x === openReq) mark('detail');
  }

  // OAuth2 bursts. A burst starts at a command's first 401 answer; the refresh exchange closes
  // its 401 part; the replays after it join it.
  function newBurst(first) {
    const b = {
      t: 'b', seq: first.seq, command: first.command, phase: '401', n401: 0, refresh: null,
      replays: 0, replaysOk: 0, startMs: null, endMs: null, ticks: [], v: 1
    };
    // The header goes just before the burst's first exchange (which is near the end of the list).
    const net = S.net;
    let i = net.length - 1;
    while (i >= 0 && net[i] !== first) i--;
    if (i < 0) i = net.length;
    net.splice(i, 0, b);
    netList.insertedAt(i);
    S.burst = b;
    S.latestBurst = b;
    return b;
  }
  function tick(b, x, part) {
    const ms = typeof x.ms === 'number' ? x.ms : 0;
    if (b.startMs === null || ms < b.startMs) b.startMs = ms;
    if (b.endMs === null || ms > b.endMs) b.endMs = ms;
    if (b.ticks.length < 5000) b.ticks.push([ms, part]);
    b.v++;
    mark('burst');
  }
  function joinBurstOnStart(x) {
    const b = S.burst;
    if (!b || b.command !== x.command) return;
    if (x.role === 'refresh' && b.phase === '401' && !b.refresh) {
      b.refresh = x; b.phase = 'replays'; x.burst = b; x.part = 'refresh'; b.v++; mark('burst');
    } else if (x.role === 'replay' && b.phase === 'replays') {
      b.replays++; x.burst = b; x.part = 'replay'; b.v++; mark('burst');
    }
  }
  function joinBurstOnAnswer(x) {
    if (x.burst) {
      const b = x.burst;
      if (x.part === 'replay' && x.status !== null && x.status < 400 && !x.error) b.replaysOk++;
      tick(b, x, x.part);
      return;
    }
    if (x.status !== 401 || x.role !== 'request') return;
    let b = S.burst;
    // Every 401 of one command belongs to its burst: one sent before the refresh, and one
    // sent with the old token while the refresh ran (replayed at once with the new one).
    const joins = b && b.command === x.command;
    if (!joins) b = newBurst(x);
    b.n401++;
    x.burst = b;
    x.part = '401';
    tick(b, x, '401');
  }

  // Keeps at most MAX_EVENTS events' worth of state: an exchange counts for its two events, a
  // command for its two, a navigation change or mutation for one. The oldest go first, from the
  // network list (by far the largest) before the session.
  function trim() {
    const small = S.nav.length + S.dsHistory.length + S.traces.size;
    let cmdWorth = S.commands.length * 2;
    if (small + cmdWorth + S.requestCount * 2 <= MAX_EVENTS) return;
    const cmdBudget = Math.max(MAX_EVENTS / 2, MAX_EVENTS - small - S.requestCount * 2);
    if (cmdWorth > cmdBudget) {
      const cmds = S.commands;
      const k = Math.min(cmds.length - 1, Math.ceil((cmdWorth - cmdBudget) / 2));
      if (k > 0) {
        for (let i = 0; i < k; i++) { S.cmdByN.delete(cmds[i].n); S.links.delete(cmds[i].n); }
        cmds.splice(0, k);
        sessionList.removedFront();
        cmdWorth = cmds.length * 2;
        mark('session');
      }
    }
    const netBudget = MAX_EVENTS - small - cmdWorth;
    let drop = Math.ceil((S.requestCount * 2 - netBudget) / 2);
    if (drop <= 0) return;
    const net = S.net;
    let k = 0;
    while (k < net.length && drop > 0) {
      const it = net[k++];
      if (it.t === 'x') {
        drop--;
        S.exch.delete(it.id);
        S.requestCount--;
        if (it === openReq) { openReq = null; mark('detail'); }
      } else {
        if (it === S.burst) S.burst = null;
        if (it === S.latestBurst) { S.latestBurst = null; mark('burst'); }
      }
    }
    net.splice(0, k);
    netList.removedFront();
    mark('net');
  }

  // ---------------------------------------------------------------- virtual lists
  // Only the rows in view (and a few around) are in the DOM. Heights come from the items, so
  // positions are prefix sums; a row element is kept while its item stays in view.
  function VirtualList(viewport, heightOf, make, fill) {
    const spacer = el('div', 'vspacer');
    viewport.appendChild(spacer);
    let prefix = new Float64Array(1024);
    let valid = 0;          // prefix[0 ... valid] are right
    let stick = true;       // follows the newest item while scrolled to the bottom
    let items = [];
    const live = new Map(); // item -> element
    let spacerHeight = -1;
    let ignoreScroll = false;
    viewport.addEventListener('scroll', function () {
      if (ignoreScroll) { ignoreScroll = false; } else {
        stick = viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight - 6;
      }
      api.render();
    }, { passive: true });

    function ensure() {
      const n = items.length;
      if (valid > n) valid = 0;
      if (prefix.length < n + 1) {
        const bigger = new Float64Array(Math.max(n + 1, prefix.length * 2));
        bigger.set(prefix.subarray(0, valid + 1));
        prefix = bigger;
      }
      for (let i = valid; i < n; i++) prefix[i + 1] = prefix[i] + heightOf(items[i]);
      valid = n;
    }
    function find(y) {   // the last i with prefix[i] <= y
      let lo = 0, hi = items.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (prefix[mid] <= y) lo = mid; else hi = mid - 1;
      }
      return lo;
    }
    function indexOf(item) {
      for (let i = items.length - 1; i >= 0; i--) if (items[i] === item) return i;
      return -1;
    }
    const api = {
      setItems(list) { if (list !== items) { items = list; valid = 0; } },
      changed(item) {   // an item's height may have changed (usually one of the newest)
        if (valid === 0) return;
        const i = indexOf(item);
        if (i >= 0 && i < valid) valid = i;
      },
      insertedAt(i) { if (i < valid) valid = i; },
      removedFront() { valid = 0; },
      reset() {
        valid = 0; stick = true;
        for (const e of live.values()) e.remove();
        live.clear();
      },
      reveal(item) {
        ensure();
        const i = indexOf(item);
        if (i < 0) return;
        const top = prefix[i], bottom = prefix[i + 1], h = viewport.clientHeight;
        if (top < viewport.scrollTop || bottom > viewport.scrollTop + h) {
          stick = false;
          viewport.scrollTop = Math.max(0, top - h / 3);
        }
        api.render();
      },
      render() {
        ensure();
        const n = items.length;
        const total = prefix[n];
        if (total !== spacerHeight) { spacer.style.height = total + 'px'; spacerHeight = total; }
        const h = viewport.clientHeight;
        if (stick && h > 0) {
          const target = Math.max(0, total - h);
          if (Math.abs(viewport.scrollTop - target) > 1) { ignoreScroll = true; viewport.scrollTop = target; }
        }
        const top = viewport.scrollTop;
        let a = Math.max(0, find(top) - 4);
        let b = Math.min(n, find(top + (h || 800)) + 5);
        const keep = new Set();
        for (let i = a; i < b; i++) {
          const it = items[i];
          let e = live.get(it);
          if (!e) {
            e = make(it);
            e.classList.add('vrow');
            e._item = it;
            live.set(it, e);
            viewport.appendChild(e);
          }
          const y = prefix[i], hh = prefix[i + 1] - prefix[i];
          if (e._y !== y) { e.style.top = y + 'px'; e._y = y; }
          if (e._h !== hh) { e.style.height = hh + 'px'; e._h = hh; }
          if (e._v !== it.v || e._sel !== selVersion) { fill(e, it); e._v = it.v; e._sel = selVersion; }
          keep.add(it);
        }
        for (const [it, e] of live) if (!keep.has(it)) { e.remove(); live.delete(it); }
      }
    };
    return api;
  }

  // ---------------------------------------------------------------- linking
  const EMPTY = new Set();
  let L = null;   // the current link predicates, or null
  function computeLinks() {
    if (!sel) { L = null; return; }
    if (sel.kind === 'command') {
      const n = sel.n;
      const l = S.links.get(n);
      L = {
        req: (x) => x.command === n,
        burst: (b) => b.command === n,
        nav: (v) => v.command === n,
        cmd: (c) => c.n === n,
        products: l ? l.products : EMPTY,
        rows: l ? l.rows : EMPTY,
        sections: l ? l.sections : EMPTY,
        allRows: l ? l.all : false,
        coordinators: l ? l.components : EMPTY,
        components: EMPTY
      };
    } else {
      // A component is matched without regard to case: the lifeline APISessionManager is the
      // factory product apiSessionManager (and NetworkController is networkController).
      const key = sel.name.toLowerCase();
      const one = new Set([key]);
      L = {
        req: (x) => x.sender.toLowerCase() === key,
        burst: () => false,
        nav: (v) => v.component.toLowerCase() === key,
        cmd: () => false,
        products: one,
        rows: EMPTY, sections: EMPTY, allRows: false,
        coordinators: one,
        components: one,
        anyCase: true
      };
    }
  }
  function linkSvg(box) {
    for (const e of box.querySelectorAll('.linked')) e.classList.remove('linked');
    if (!L) return;
    const norm = L.anyCase ? (s) => s.toLowerCase() : (s) => s;
    for (const e of box.querySelectorAll('[data-product]')) {
      if (L.products.has(norm(e.getAttribute('data-product')))) e.classList.add('linked');
    }
    if (L.allRows || L.rows.size || L.sections.size) {
      for (const e of box.querySelectorAll('[data-row]')) {
        const r = e.getAttribute('data-row');
        const s = parseInt(r, 10);
        if (L.allRows || L.rows.has(r) || L.sections.has(s)) e.classList.add('linked');
      }
    }
    for (const e of box.querySelectorAll('[data-coordinator]')) {
      if (L.coordinators.has(norm(e.getAttribute('data-coordinator')))) e.classList.add('linked');
    }
    if (L.components.size) {
      for (const e of box.querySelectorAll('[data-component]')) {
        if (L.components.has(norm(e.getAttribute('data-component')))) e.classList.add('linked');
      }
    }
    const first = box.querySelector('.linked');
    if (first && box._revealed !== selVersion) {
      box._revealed = selVersion;
      first.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
  }
  function select(next) {
    sel = next;
    selVersion++;
    if (sel && sel.kind === 'command' && S.traces.has(sel.n)) tracePinned = sel.n;
    if (!sel) tracePinned = null;
    computeLinks();
    mark('links');
    mark('trace');
    mark('traces');
    mark('header');
    mark('nav');
    mark('session');
    mark('net');
  }
  function selectCommand(n, reveal) {
    if (sel && sel.kind === 'command' && sel.n === n && !reveal) { select(null); return; }
    select({ kind: 'command', n });
    if (reveal) {
      const c = S.cmdByN.get(n);
      if (c) requestAnimationFrame(() => sessionList.reveal(c));
    }
    // Bring the command's first request into view.
    for (const it of S.net) {
      if (it.command === n) { requestAnimationFrame(() => netList.reveal(it)); break; }
    }
  }
  function selectComponent(name) {
    if (sel && sel.kind === 'component' && sel.name.toLowerCase() === name.toLowerCase()) {
      select(null);
      return;
    }
    select({ kind: 'component', name });
  }

  // ---------------------------------------------------------------- pictures
  // An SVG's own <style> would apply to the whole page once inserted: its rules are scoped to
  // the box that shows it.
  function splitSelectors(text) {
    const out = [];
    let depth = 0, cur = '';
    for (const ch of text) {
      if (ch === '(' || ch === '[') depth++;
      else if (ch === ')' || ch === ']') depth--;
      if (ch === ',' && depth === 0) { out.push(cur.trim()); cur = ''; } else cur += ch;
    }
    if (cur.trim()) out.push(cur.trim());
    return out;
  }
  function scopeRules(rules, scope) {
    for (const r of Array.from(rules)) {
      if (typeof r.selectorText === 'string') {
        r.selectorText = splitSelectors(r.selectorText).map((s) => scope + ' ' + s).join(', ');
      } else if (r.cssRules) {
        scopeRules(r.cssRules, scope);
      }
    }
  }
  function showSvg(box, svg, emptyText) {
    if (box._svg === svg) { linkSvg(box); return; }
    box._svg = svg;
    if (!svg) {
      box.textContent = '';
      box.appendChild(el('div', 'placeholder', emptyText));
      return;
    }
    box.innerHTML = svg;
    for (const st of box.querySelectorAll('style')) {
      try {
        if (st.sheet) scopeRules(st.sheet.cssRules, '#' + box.id);
      } catch (err) { st.remove(); }
    }
    const root = box.querySelector('svg');
    if (root) {
      const w = parseFloat(root.getAttribute('width'));
      const h = parseFloat(root.getAttribute('height'));
      if (!root.getAttribute('viewBox') && w > 0 && h > 0) root.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
      // Shrinks to fit; grows at most a little, so a small picture's text stays in proportion.
      if (w > 0) root.style.maxWidth = Math.round(w * 1.4) + 'px';
    }
    linkSvg(box);
  }

  // ---------------------------------------------------------------- panels
  function renderHeader() {
    $('last-n').textContent = S.lastN ? '#' + S.lastN : '';
    $('last-command').textContent = S.lastLine;
    $('event-count').textContent = S.eventCount.toLocaleString('en-US') + ' events';
    $('gap-note').hidden = !S.gap && !S.missed;
    if (S.missed) $('gap-note').textContent = S.missed.toLocaleString('en-US') + ' events missed';
    else if (S.gap) $('gap-note').textContent = 'history starts at event ' + S.firstSeq + ' (older ones dropped)';
    const s = $('selection');
    if (!sel) { s.hidden = true; }
    else {
      s.hidden = false;
      if (sel.kind === 'command') {
        const c = S.cmdByN.get(sel.n);
        s.textContent = 'selected #' + sel.n + (c ? ' ' + c.line : '') + ' (Esc clears)';
      } else {
        s.textContent = 'selected ' + sel.name + ' (Esc clears)';
      }
    }
  }

  function renderCoordinators() {
    const p = S.panels.coordinators;
    const box = $('svg-coordinators');
    const changed = box._svg !== (p ? p.svg : '');
    showSvg(box, p ? p.svg : '', 'no coordinators yet: try app start');
    const visible = changed && !L ? box.querySelector('.coordinator.visible') : null;
    if (visible) visible.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const screen = S.panels.screen;
    $('coord-info').textContent = screen && screen.note ? 'visible: ' + screen.note : '';
  }
  function renderScreen() {
    const p = S.panels.screen;
    $('screen-title').textContent = p ? 'Visible screen: ' + (p.note || p.title || '') : 'Visible screen';
    $('coord-info').textContent = p && p.note ? 'visible: ' + p.note : '';
    showSvg($('svg-screen'), p ? p.svg : '', 'no screen yet');
  }
  function renderNav() {
    const ol = $('nav-list');
    const frag = document.createDocumentFragment();
    const nav = S.nav;
    for (let i = nav.length - 1, shown = 0; i >= 0 && shown < SHOWN_NAV; i--, shown++) {
      const v = nav[i];
      const li = el('li', 'nav ch-' + v.change.replace(/[^a-z]/gi, ''));
      li.setAttribute('data-command', String(v.command));
      li.appendChild(el('span', 'nav-comp', v.component));
      li.appendChild(document.createTextNode(' '));
      li.appendChild(el('span', 'nav-text', v.text));
      li.title = v.change + ' (command #' + v.command + ')';
      if (L && L.nav(v)) li.classList.add('linked');
      li._cmd = v.command;
      frag.appendChild(li);
    }
    ol.textContent = '';
    ol.appendChild(frag);
    if (!nav.length) ol.appendChild(el('li', 'placeholder', 'no navigation yet'));
  }
  // The products the last command touched, large; the whole graph one click away.
  function renderFactories() {
    const p = S.panels.factories;
    const whole = !!(p && p.whole && S.wholeFactories);
    showSvg($('svg-factories'), p ? (whole ? p.whole : p.svg) : '', 'no factory picture yet');
    $('factory-info').textContent = p ? (whole ? 'the whole graph' : (p.title || '')) : '';
    const button = $('factory-whole');
    button.hidden = !(p && p.whole);
    button.textContent = whole ? 'last command' : 'whole graph';
  }
  $('factory-whole').addEventListener('click', () => {
    S.wholeFactories = !S.wholeFactories;
    renderFactories();
  });
  function renderFactorySummary() {
    const f = S.factoryLast;
    const box = $('factory-summary');
    box.textContent = '';
    if (!f) return;
    box.appendChild(el('b', null, '#' + f.command + ' '));
    if (f.built.size) {
      box.appendChild(el('span', 'fs-new', 'built ' + f.built.size + ': '));
      box.appendChild(document.createTextNode(Array.from(f.built).slice(0, 12).join(', ') + (f.built.size > 12 ? ' …' : '') + ' '));
    }
    if (f.reused.size) {
      box.appendChild(el('span', 'fs-reused', 'reused ' + f.reused.size + ': '));
      box.appendChild(document.createTextNode(Array.from(f.reused).slice(0, 12).join(', ') + (f.reused.size > 12 ? ' …' : '')));
    }
  }
  function renderDatasource() {
    const p = S.panels.datasource;
    showSvg($('svg-datasource'), p ? p.svg : '', 'no data source yet: try ds new');
    $('ds-title').textContent = p ? (p.title || '') : '';
    $('ds-info').textContent = p ? (p.title || '') : '';
    renderDsSide();
  }
  function renderDsSide() {
    const p = S.panels.datasource;
    const d = S.lastDs;
    const note = (p && p.note) || (d && d.notification) || 'none yet';
    $('ds-note').textContent = note;
    const t = $('ds-touched');
    if (!d) t.textContent = '';
    else if (d.all) t.textContent = 'all rows';
    else if (Array.isArray(d.rows) && d.rows.length) t.textContent = d.rows.slice(0, 40).join('  ') + (d.rows.length > 40 ? ' … (' + d.rows.length + ')' : '');
    else if (typeof d.section === 'number') t.textContent = 'section ' + d.section;
    else t.textContent = 'none';
    const ol = $('ds-history');
    ol.textContent = '';
    for (let i = S.dsHistory.length - 1, k = 0; i >= 0 && k < 6; i--, k++) {
      const e = S.dsHistory[i];
      ol.appendChild(el('li', null, '#' + e.command + ' ' + (e.name ? e.name + ': ' : '') + (e.notification || 'created')));
    }
  }

  // Network
  const ROW_H = 40;
  const BURST_H = 46;
  function makeNetRow(it) {
    const e = el('div', it.t === 'b' ? 'burst' : 'request');
    return e;
  }
  function burstParts(container, b) {
    container.appendChild(el('span', 'chip chip-401', b.n401 + ' × 401'));
    container.appendChild(el('span', 'arrow', ' → '));
    if (b.refresh) {
      const ok = b.refresh.answered ? (b.refresh.status !== null && b.refresh.status < 400 && !b.refresh.error) : true;
      const chip = el('span', 'chip chip-refresh', '1 refresh' + (ok ? '' : ' (' + (b.refresh.status || 'failed') + ')'));
      if (!ok) chip.style.background = 'var(--bad)';
      container.appendChild(chip);
    } else {
      container.appendChild(el('span', 'chip chip-none', 'no refresh yet'));
    }
    container.appendChild(el('span', 'arrow', ' → '));
    container.appendChild(el('span', 'chip chip-replay', plural(b.replays, 'replay', 'replays')));
    if (b.startMs !== null && b.endMs !== null) {
      container.appendChild(el('span', 'b-time', ' ' + fmtMs(b.endMs - b.startMs)));
    }
  }
  function fillNetRow(e, it) {
    e.textContent = '';
    const linked = L ? (it.t === 'b' ? L.burst(it) : L.req(it)) : false;
    if (it.t === 'b') {
      e.className = 'burst vrow' + (linked ? ' linked' : '');
      e.title = 'OAuth2 burst of command #' + it.command;
      burstParts(e, it);
      return;
    }
    e.className = 'request vrow' + (it.part ? ' part-' + it.part : '') + (linked ? ' linked' : '') + (it === openReq ? ' open' : '');
    e.appendChild(el('span', 'r-m', it.method));
    e.appendChild(document.createTextNode(' '));
    e.appendChild(el('span', 'r-p', it.path));
    e.appendChild(document.createTextNode(' '));
    let st, cls;
    if (!it.answered) { st = '…'; cls = 'st-wait'; }
    else if (it.error && it.status === null) { st = 'ERR'; cls = 'st-bad'; }
    else { st = it.status === null ? '—' : String(it.status); cls = it.status !== null && it.status < 400 ? 'st-ok' : 'st-bad'; }
    e.appendChild(el('span', 'r-s ' + cls, st));
    e.appendChild(document.createTextNode(' '));
    e.appendChild(el('span', 'r-b', it.answered ? fmtBytes(it.bytes) : ''));
    e.appendChild(document.createTextNode(' '));
    e.appendChild(el('span', 'r-d', it.answered ? fmtMs(it.duration) : ''));
    if (it.role && it.role !== 'request') {
      e.appendChild(document.createTextNode(' '));
      e.appendChild(el('span', 'role role-' + it.role, it.role));
    }
    e.title = '#' + it.command + ' ' + it.method + ' ' + it.url + (it.sender ? ' (' + it.sender + ')' : '') + (it.error ? '\n' + it.error : '');
  }
  function renderRequestCount() {
    const c = $('request-count');
    c.setAttribute('data-count', String(S.requestCount));
    c.textContent = plural(S.requestCount, 'request', 'requests');
  }
  function renderLatestBurst() {
    const b = S.latestBurst;
    const box = $('burst-latest');
    if (!b) { box.hidden = true; return; }
    box.hidden = false;
    box.textContent = '';
    const line = el('div', 'burst-line');
    line.appendChild(el('span', null, 'OAuth2 burst #' + b.command + ':'));
    burstParts(line, b);
    box.appendChild(line);
    const track = el('div');
    track.id = 'burst-track';
    const span = Math.max(0.001, (b.endMs || 0) - (b.startMs || 0));
    const frag = document.createDocumentFragment();
    for (const [ms, part] of b.ticks) {
      const t = el('span', 'tick t-' + part);
      t.style.left = 'calc(' + (((ms - b.startMs) / span) * 100).toFixed(2) + '% - ' + ((ms - b.startMs) / span * 8).toFixed(1) + 'px)';
      frag.appendChild(t);
    }
    track.appendChild(frag);
    box.appendChild(track);
    box.classList.toggle('linked', !!(L && L.burst(b)));
  }

  // Request details
  function shellQuote(s) { return "'" + String(s).replace(/'/g, "'\\''") + "'"; }
  function curlOf(x) {
    const parts = ['curl'];
    if (x.method && x.method !== 'GET') parts.push('-X', x.method);
    parts.push(shellQuote(x.url || x.path));
    for (const h of x.reqHeaders || []) {
      if (Array.isArray(h) && h.length >= 2) parts.push('-H', shellQuote(h[0] + ': ' + h[1]));
    }
    if (x.reqBody !== null && x.reqBody !== undefined && x.reqBody !== '') parts.push('--data-raw', shellQuote(x.reqBody));
    return parts.join(' ');
  }
  function headersTable(list) {
    if (!list || !list.length) return el('div', 'none', 'none');
    const t = el('table', 'headers');
    for (const h of list) {
      const tr = el('tr');
      tr.appendChild(el('td', null, Array.isArray(h) ? h[0] : ''));
      tr.appendChild(el('td', null, Array.isArray(h) ? h[1] : String(h)));
      t.appendChild(tr);
    }
    return t;
  }
  function bodyBlock(body) {
    if (body === null || body === undefined || body === '') return el('div', 'none', 'none');
    let text = body;
    if (body.length < 100000 && /^\s*[[{]/.test(body)) {
      try { text = JSON.stringify(JSON.parse(body), null, 2); } catch (err) { text = body; }
    }
    return el('pre', 'body', text);
  }
  function renderDetail() {
    const d = $('req-detail');
    const list = $('net-list');
    $('panel-network').classList.toggle('detail-open', !!openReq);
    if (!openReq) { d.hidden = true; d.textContent = ''; list.classList.remove('shrunk'); return; }
    const x = openReq;
    d.hidden = false;
    list.classList.add('shrunk');
    d.textContent = '';
    const head = el('div', 'detail-head');
    head.appendChild(el('span', 'detail-title', x.method + ' ' + (x.url || x.path)));
    const copy = el('button', null, 'copy as curl');
    copy.type = 'button';
    copy.id = 'curl-button';
    head.appendChild(copy);
    const close = el('button', null, 'close');
    close.type = 'button';
    close.id = 'detail-close';
    head.appendChild(close);
    d.appendChild(head);
    const facts = el('div', 'detail-facts');
    const add = (k, v) => { facts.appendChild(document.createTextNode(k + ' ')); facts.appendChild(el('b', null, v)); facts.appendChild(document.createTextNode('   ')); };
    add('status', x.answered ? (x.status === null ? '—' : String(x.status)) : 'waiting');
    add('command', '#' + x.command);
    add('role', x.role);
    if (x.sender) add('sender', x.sender);
    if (x.answered) { add('time', fmtMs(x.duration)); add('size', fmtBytes(x.bytes)); }
    d.appendChild(facts);
    if (x.error) d.appendChild(el('div', 'error-text', 'error: ' + x.error));
    d.appendChild(el('div', 'subhead', 'Request headers'));
    d.appendChild(headersTable(x.reqHeaders));
    d.appendChild(el('div', 'subhead', 'Request body'));
    d.appendChild(bodyBlock(x.reqBody));
    d.appendChild(el('div', 'subhead', 'Response headers'));
    d.appendChild(headersTable(x.resHeaders));
    d.appendChild(el('div', 'subhead', 'Response body'));
    d.appendChild(bodyBlock(x.resBody));
    const ta = el('textarea');
    ta.id = 'curl-text';
    ta.readOnly = true;
    ta.hidden = curlShownFor !== x;   // stays open when the request's answer redraws it
    ta.value = curlOf(x);
    d.appendChild(ta);
    const note = el('span');
    note.id = 'curl-note';
    head.appendChild(note);
  }
  let curlShownFor = null;
  function copyCurl() {
    if (!openReq) return;
    curlShownFor = openReq;
    const text = curlOf(openReq);
    const ta = $('curl-text');
    const note = $('curl-note');
    ta.value = text;
    ta.hidden = false;
    const fallback = () => {
      ta.focus();
      ta.select();
      let ok = false;
      try { ok = document.execCommand('copy'); } catch (err) { ok = false; }
      note.textContent = ok ? 'copied' : 'selected: press Ctrl+C';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(() => { note.textContent = 'copied'; }, fallback);
    } else {
      fallback();
    }
  }
  function openDetail(x) {
    openReq = openReq === x ? null : x;
    selVersion++;   // redraws the open row's mark
    mark('detail');
    mark('net');
  }

  // Trace
  function shownTraceCommand() {
    if (tracePinned !== null && S.traces.has(tracePinned)) return tracePinned;
    let last = null;
    for (const k of S.traces.keys()) last = k;
    return last;
  }
  function traceLabel(n, p) {
    const c = S.cmdByN.get(n);
    return (c && c.line) || p.note || p.title || '';
  }
  function renderTrace() {
    const n = shownTraceCommand();
    const p = n === null ? null : S.traces.get(n);
    showSvg($('svg-trace'), p ? p.svg : '', 'no trace yet');
    $('trace-info').textContent = p ? '#' + n + ' ' + traceLabel(n, p) : '';
    const picker = $('trace-picker');
    const want = tracePinned !== null && S.traces.has(tracePinned) ? String(tracePinned) : '';
    if (picker.value !== want) picker.value = want;
  }
  function renderTracePicker() {
    const picker = $('trace-picker');
    picker.textContent = '';
    const latest = el('option', null, 'latest command');
    latest.value = '';
    picker.appendChild(latest);
    const keys = Array.from(S.traces.keys()).reverse();
    for (const k of keys) {
      const p = S.traces.get(k);
      const o = el('option', null, '#' + k + '  ' + traceLabel(k, p));
      o.value = String(k);
      picker.appendChild(o);
    }
    picker.value = tracePinned !== null && S.traces.has(tracePinned) ? String(tracePinned) : '';
  }

  // Session
  const CMD_HEAD = 40;
  const LINE_H = 24;
  function cmdHeight(c) {
    let h = CMD_HEAD + 2;
    if (c.lines > 0) {
      const shown = c.open ? c.lines : Math.min(c.lines, PREVIEW_LINES);
      h += shown * LINE_H + 8 + 2 + 16;   // lines, padding, margin, room for a scroll bar
      if (c.lines > PREVIEW_LINES) h += 32;
    }
    return h;
  }
  function fillCommand(e, c) {
    e.textContent = '';
    const failed = c.ok === false;
    const running = c.ended === null;
    const linked = L ? L.cmd(c) : false;
    e.className = 'command vrow' + (failed ? ' failed' : '') + (running ? ' running' : '') + (linked ? ' linked selected' : '');
    e.setAttribute('data-command', String(c.n));
    const head = el('div', 'cmd-head');
    head.appendChild(el('span', 'cmd-n', '#' + c.n));
    head.appendChild(el('span', 'cmd-line', c.line));
    if (c.origin && c.origin !== 'prompt') head.appendChild(el('span', 'cmd-badge b-origin', c.origin));
    if (running) head.appendChild(el('span', 'cmd-badge b-running', 'running'));
    if (failed) head.appendChild(el('span', 'cmd-badge', 'failed'));
    if (c.ended !== null && typeof c.began === 'number') head.appendChild(el('span', 'cmd-time', fmtMs(c.ended - c.began)));
    e.appendChild(head);
    if (c.lines > 0) {
      let text = c.out;
      if (!c.open && c.lines > PREVIEW_LINES) {
        let at = -1;
        for (let i = 0; i < PREVIEW_LINES; i++) at = text.indexOf('\n', at + 1);
        text = text.slice(0, at);
      }
      e.appendChild(el('pre', 'cmd-out', text));
      if (c.lines > PREVIEW_LINES) {
        const b = el('button', 'more', c.open ? 'show less' : 'show all ' + c.lines + ' lines');
        b.type = 'button';
        e.appendChild(b);
      }
    }
  }
  function renderSessionInfo() {
    const n = S.commands.length;
    let failed = 0;
    for (let i = Math.max(0, n - 2000); i < n; i++) if (S.commands[i].ok === false) failed++;
    $('session-info').textContent = plural(n, 'command', 'commands') + (failed ? ', ' + failed + ' failed' : '');
  }

  const netList = VirtualList($('net-list'), (it) => (it.t === 'b' ? BURST_H : ROW_H), makeNetRow, fillNetRow);
  const sessionList = VirtualList($('session-list'), cmdHeight, () => el('div', 'command'), fillCommand);

  function frame() {
    scheduled = false;
    const d = new Set(dirty);
    dirty.clear();
    trim();
    for (const k of dirty) d.add(k);
    dirty.clear();
    netList.setItems(S.net);
    sessionList.setItems(S.commands);
    const links = d.has('links');
    if (d.has('header') || links) renderHeader();
    if (d.has('p:coordinators') || links) renderCoordinators();
    if (d.has('p:screen') || links) renderScreen();
    if (d.has('nav')) renderNav();
    if (d.has('p:factories') || links) renderFactories();
    if (d.has('factory')) renderFactorySummary();
    if (d.has('p:datasource') || links) renderDatasource();
    else if (d.has('ds')) renderDsSide();
    if (d.has('traces')) renderTracePicker();
    if (d.has('trace') || links) renderTrace();
    if (d.has('burst') || links) renderLatestBurst();
    if (d.has('detail')) renderDetail();
    if (d.has('net') || d.has('burst') || links) { renderRequestCount(); netList.render(); }
    if (d.has('session') || links) { renderSessionInfo(); sessionList.render(); }
    renderHeader();
  }

  // ---------------------------------------------------------------- interaction
  $('net-list').addEventListener('click', (ev) => {
    const row = ev.target.closest('.vrow');
    if (!row || !row._item) return;
    if (row._item.t === 'b') selectCommand(row._item.command, true);
    else openDetail(row._item);
  });
  $('req-detail').addEventListener('click', (ev) => {
    const b = ev.target.closest('button');
    if (!b) return;
    if (b.id === 'curl-button') copyCurl();
    if (b.id === 'detail-close') { openReq = null; selVersion++; mark('detail'); mark('net'); }
  });
  $('session-list').addEventListener('click', (ev) => {
    const row = ev.target.closest('.vrow');
    if (!row || !row._item) return;
    const c = row._item;
    if (ev.target.closest('button.more')) {
      c.open = !c.open;
      c.v++;
      sessionList.changed(c);
      mark('session');
      return;
    }
    // Copying text from this list; a selection elsewhere (the curl text) does not count.
    const sel = window.getSelection ? window.getSelection() : null;
    if (sel && String(sel).length > 0 && sel.anchorNode && $('session-list').contains(sel.anchorNode)) return;
    selectCommand(c.n, false);
  });
  $('nav-list').addEventListener('click', (ev) => {
    const li = ev.target.closest('li.nav');
    if (li && li._cmd !== undefined) selectCommand(li._cmd, true);
  });
  $('svg-trace').addEventListener('click', (ev) => {
    const g = ev.target.closest('[data-component]');
    if (g) selectComponent(g.getAttribute('data-component'));
  });
  $('svg-factories').addEventListener('click', (ev) => {
    const g = ev.target.closest('[data-product]');
    if (g) selectComponent(g.getAttribute('data-product'));
  });
  $('svg-coordinators').addEventListener('click', (ev) => {
    const g = ev.target.closest('[data-coordinator]');
    if (g) selectComponent(g.getAttribute('data-coordinator'));
  });
  $('trace-picker').addEventListener('change', (ev) => {
    const v = ev.target.value;
    if (v === '') { tracePinned = null; if (sel && sel.kind === 'command') select(null); else mark('trace'); }
    else selectCommand(parseInt(v, 10), true);
  });
  for (const b of document.querySelectorAll('.zoom-button')) {
    b.addEventListener('click', () => {
      const section = b.closest('section');
      const grid = $('grid');
      const on = !section.classList.contains('zoom');
      for (const s of grid.children) s.classList.remove('zoom');
      section.classList.toggle('zoom', on);
      grid.classList.toggle('zoomed', on);
      b.textContent = on ? '⤡' : '⤢';
      b.title = on ? 'back to all panels' : 'enlarge';
      for (const o of document.querySelectorAll('.zoom-button')) if (o !== b) { o.textContent = '⤢'; o.title = 'enlarge'; }
      markAll();
    });
  }
  for (const b of document.querySelectorAll('.scale-button')) {
    b.addEventListener('click', () => {
      const section = b.closest('section');
      const on = section.classList.toggle('natural');
      b.textContent = on ? 'fit' : '1:1';
      b.title = on ? 'fit the picture to the panel' : 'show the picture at its own size';
      mark('links');
    });
  }
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') {
      if (sel || tracePinned !== null) select(null);
      else if (openReq) { openReq = null; selVersion++; mark('detail'); mark('net'); }
    }
  });
  window.addEventListener('resize', () => markAll());

  // ---------------------------------------------------------------- the stream
  let source = null;
  let retry = 0;
  function setStatus(live) {
    const st = $('status');
    st.textContent = live ? 'live' : 'reconnecting';
    st.classList.toggle('is-live', live);
  }
  function reset(gap) {
    S = freshState();
    S.gap = gap;
    if (openReq) openReq = null;
    netList.reset();
    sessionList.reset();
    computeLinks();
    selVersion++;
  }
  let boardClosed = false;
  function connect() {
    setStatus(false);
    source = new EventSource('/events?token=' + encodeURIComponent(token));
    source.onopen = () => setStatus(true);
    source.onerror = () => {
      if (boardClosed) return;
      setStatus(false);
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (an error status): try again from a fresh snapshot.
        source.close();
        clearTimeout(retry);
        retry = setTimeout(connect, 3000);
      }
    };
    source.addEventListener('closed', (ev) => {
      // 'board close' in archsh, or too many pages open: nothing more will come, so the page
      // stops asking.
      boardClosed = true;
      source.close();
      clearTimeout(retry);
      let reason = 'the board was closed in archsh';
      try { reason = JSON.parse(ev.data).reason || reason; } catch (err) { /* the default */ }
      const st = document.getElementById('status');
      if (st) st.textContent = 'closed: ' + reason;
    });
    source.addEventListener('snapshot', (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch (err) { return; }
      reset(!!data.gap);
      const events = Array.isArray(data.events) ? data.events : [];
      for (const e of events) apply(e);
      computeLinks();
      setStatus(true);
      markAll();
    });
    source.addEventListener('arch', (ev) => {
      let e;
      try { e = JSON.parse(ev.data); } catch (err) { return; }
      // Sequence numbers are consecutive: a jump means the server dropped messages for this page.
      if (typeof e.seq === 'number' && S.lastSeq && e.seq > S.lastSeq + 1) {
        S.missed += e.seq - S.lastSeq - 1;
        mark('header');
      }
      apply(e);
    });
  }
  reset(false);
  markAll();
  connect();
})();
