// The weft task console. Everything a task holds is data: it goes into the
// page as text (textContent, text nodes), never as markup.
'use strict';
(() => {
  const meta = (name) => document.querySelector('meta[name="' + name + '"]').content;
  const csrf = meta('weft-csrf');
  const csrfHeader = meta('weft-csrf-header');
  const needsSignIn = meta('weft-sign-in') === 'true';
  const pageSize = Number(meta('weft-page-size')) || 50;
  const $ = (id) => document.getElementById(id);
  const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

  const state = {
    filter: { status: '', tool: '', principal: '' },
    cursor: '',      // the cursor of the page shown ('' for the newest)
    previous: [],    // cursors of the pages before it
    next: '',
    rows: new Map(), // task ID -> its row's data
    skew: 0,         // server clock minus this clock, in ms
    events: null,
    detailID: '',    // the task the detail shows, or last showed (the dialog may be closed)
    detailReads: 0,  // detail reads begun; only the newest one's answer is shown
    trimmed: false,  // live insertions pushed rows off the page
    loads: 0,        // list reads begun; only the newest one's answer is shown
    during: null,    // task ID -> row (null: gone) from events while the newest read is out
  };

  // el makes an element; children are nodes or strings (text nodes).
  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === 'class') e.className = v;
      else if (k.startsWith('data-')) e.setAttribute(k, v);
      else e[k] = v;
    }
    for (const c of children) {
      if (c !== null && c !== undefined) e.append(c);
    }
    return e;
  }

  class SignInNeeded extends Error {}

  async function api(path, options) {
    const opts = Object.assign({ credentials: 'same-origin', headers: {} }, options || {});
    if (opts.method === 'POST') opts.headers[csrfHeader] = csrf;
    const r = await fetch(path, opts);
    if (r.status === 401) {
      showSignIn();
      throw new SignInNeeded('sign in');
    }
    const body = r.status === 204 ? null : await r.json();
    if (!r.ok) throw new Error((body && body.error) || r.status + ' ' + r.statusText);
    return body;
  }

  const safeStatus = (s) => (STATUSES.includes(s) ? s : 'unknown');
  const terminal = (s) => s === 'completed' || s === 'failed' || s === 'cancelled';
  const now = () => Date.now() + state.skew;

  function time(iso) {
    if (!iso) return '—';
    const d = new Date(iso);
    const sameDay = d.toDateString() === new Date(now()).toDateString();
    return sameDay ? d.toLocaleTimeString() : d.toLocaleString();
  }

  function duration(ms) {
    if (ms <= 0) return 'expired';
    const s = Math.floor(ms / 1000);
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    if (d > 0) return d + 'd ' + h + 'h';
    if (h > 0) return h + 'h ' + m + 'm';
    if (m > 0) return m + 'm ' + (s % 60) + 's';
    return s + 's';
  }

  function ttlText(t) {
    return t.expires ? duration(new Date(t.expires).getTime() - now()) : 'never';
  }

  function progressCell(t) {
    if (t.progress === undefined || t.progress === null) return el('td', { class: 'progress' }, '—');
    const pct = Math.round(t.progress * 100);
    return el('td', { class: 'progress' },
      el('progress', { max: 100, value: pct, title: pct + '%' }), ' ' + pct + '%');
  }

  function renderRow(t) {
    const status = safeStatus(t.status);
    const open = el('button', { type: 'button', class: 'link', title: t.id }, t.id.slice(0, 10) + '…');
    open.addEventListener('click', () => showDetail(t.id));
    let action = '';
    if (!terminal(status)) {
      action = el('button', { type: 'button', class: 'cancel' }, 'Cancel');
      action.addEventListener('click', () => askCancel(t));
    }
    const tool = t.method === 'tools/call' ? t.tool : t.method + (t.tool ? ' ' + t.tool : '');
    return el('tr', { 'data-id': t.id, 'data-status': status, class: 'st-' + status },
      el('td', { class: 'id' }, open),
      el('td', { class: 'tool' }, tool),
      el('td', { class: 'principal', title: t.principal }, t.principal),
      el('td', { class: 'status' }, el('span', { class: 'badge st-' + status }, status + (t.isError ? ' (tool error)' : ''))),
      el('td', { class: 'message' }, t.message),
      progressCell(t),
      el('td', { class: 'created', title: t.created }, time(t.created)),
      el('td', { class: 'updated', title: t.updated }, time(t.updated)),
      el('td', { class: 'ttl', 'data-expires': t.expires || '' }, ttlText(t)),
      el('td', { class: 'owner' }, t.owner || '—'),
      el('td', { class: 'runs' }, String(t.runs)),
      el('td', { class: 'actions' }, action));
  }

  function matches(t) {
    const f = state.filter;
    return (!f.status || t.status === f.status) && (!f.tool || t.tool === f.tool) && (!f.principal || t.principal === f.principal);
  }

  const tbody = () => $('tasks').tBodies[0];

  function showRows(list) {
    state.rows.clear();
    const rows = list.map((t) => { state.rows.set(t.id, t); return renderRow(t); });
    tbody().replaceChildren(...rows);
    $('empty').hidden = list.length > 0;
  }

  // A list read and the live events race: the server reads the list, then
  // events about later changes can reach the page before the list does. So
  // the changes that arrive while a read is out are laid over its answer.
  function upsert(t) {
    if (state.during) state.during.set(t.id, t);
    showTask(t);
  }

  function remove(id) {
    if (state.during) state.during.set(id, null);
    removeRow(id);
  }

  // showTask shows a changed task: in place when listed; at its place by
  // creation time on the newest page when it matches the filter.
  function showTask(t) {
    const body = tbody();
    const existing = body.querySelector('tr[data-id="' + CSS.escape(t.id) + '"]');
    if (existing) {
      state.rows.set(t.id, t);
      existing.replaceWith(renderRow(t));
    } else if (state.cursor === '' && matches(t)) {
      const created = new Date(t.created).getTime();
      let before = null;
      for (const tr of body.rows) {
        const other = state.rows.get(tr.getAttribute('data-id'));
        if (other && new Date(other.created).getTime() <= created) { before = tr; break; }
      }
      if (before === null && body.rows.length >= pageSize) return; // older than this page
      state.rows.set(t.id, t);
      body.insertBefore(renderRow(t), before);
      while (body.rows.length > pageSize) {
        const last = body.rows[body.rows.length - 1];
        state.rows.delete(last.getAttribute('data-id'));
        last.remove();
        state.trimmed = true; // the page's cursor now skips the trimmed rows
        $('older').disabled = false;
      }
      $('empty').hidden = true;
    }
    if (state.detailID === t.id && $('detail').open) showDetail(t.id, true);
  }

  function removeRow(id) {
    const tr = tbody().querySelector('tr[data-id="' + CSS.escape(id) + '"]');
    if (tr) tr.remove();
    state.rows.delete(id);
  }

  // loadPage reads the page of tasks the filter and cursor select. The
  // table is aria-busy until the newest read is shown; an older read's
  // answer, arriving late, is dropped.
  async function loadPage() {
    const q = new URLSearchParams(state.filter);
    if (state.cursor) q.set('cursor', state.cursor);
    const read = ++state.loads;
    state.during = new Map();
    $('tasks').setAttribute('aria-busy', 'true');
    try {
      const page = await api('api/tasks?' + q.toString());
      if (read !== state.loads) return;
      state.skew = new Date(page.now).getTime() - Date.now();
      state.next = page.next;
      state.trimmed = false;
      showRows(page.tasks);
      for (const [id, t] of state.during) {
        if (t) showTask(t);
        else removeRow(id);
      }
      $('older').disabled = !page.next;
      $('newest').disabled = state.cursor === '';
      $('list-error').textContent = '';
    } catch (e) {
      if (read === state.loads && !(e instanceof SignInNeeded)) $('list-error').textContent = 'Could not list the tasks: ' + e.message;
    } finally {
      if (read === state.loads) {
        state.during = null;
        $('tasks').removeAttribute('aria-busy');
      }
    }
  }

  function showTotals(t) {
    const cards = STATUSES.map((s) => el('div', { class: 'card st-' + s, 'data-status': s },
      el('span', { class: 'n' }, String(t.byStatus[s] || 0)), el('span', { class: 'label' }, s)));
    $('by-status').replaceChildren(...cards);
    const owners = Object.entries(t.byOwner).sort((a, b) => b[1] - a[1]);
    $('by-owner').replaceChildren(el('span', { class: 'label' }, 'Unfinished tasks by instance: '),
      ...(owners.length ? owners.map(([o, n]) => el('span', { class: 'owner', 'data-owner': o }, (o || 'no lease') + ' ' + n)) : ['none']));
  }

  async function loadTotals() {
    try { showTotals(await api('api/totals')); } catch (e) { /* the list shows the problem */ }
  }

  function follow() {
    if (state.events) state.events.close();
    const es = new EventSource('api/events');
    state.events = es;
    const live = $('live');
    const on = (name, fn) => es.addEventListener(name, (ev) => fn(JSON.parse(ev.data)));
    on('hello', (h) => {
      live.className = 'live on';
      live.textContent = 'live · ' + h.instance;
      loadPage(); // whatever changed while the stream was down
      loadTotals();
    });
    on('task', upsert);
    on('gone', (g) => remove(g.id));
    on('totals', showTotals);
    on('resync', () => { loadPage(); loadTotals(); });
    on('expired', () => { es.close(); showSignIn(); });
    es.onerror = () => {
      live.className = 'live off';
      live.textContent = 'reconnecting…';
      if (needsSignIn) api('api/totals').catch(() => {}); // a lapsed token shows the sign-in
    };
  }

  function section(title, ...content) {
    return el('section', {}, el('h3', {}, title), ...content);
  }
  const pre = (text, cls) => el('pre', { class: cls || '' }, text);

  // showDetail opens the detail of a task, or with refresh, reads it again
  // for the detail open now. What happened while it read (another read
  // begun, the dialog closed) wins over what it read.
  async function showDetail(id, refresh) {
    state.detailID = id;
    const read = ++state.detailReads;
    const dialog = $('detail');
    const stale = () => read !== state.detailReads || (refresh && !dialog.open);
    let d;
    try {
      d = await api('api/tasks/' + encodeURIComponent(id));
    } catch (e) {
      if (e instanceof SignInNeeded || stale()) return;
      $('detail-body').replaceChildren(el('p', { class: 'error' }, e.message));
      if (!dialog.open) dialog.showModal();
      return;
    }
    if (stale()) return;
    $('detail-title').textContent = (d.tool || d.method) + ' · ' + d.id;
    const dl = el('dl', {});
    const item = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, v));
    item('Status', el('span', { class: 'badge st-' + safeStatus(d.status) }, d.status));
    item('Status message', d.message || '—');
    item('Principal', d.principal);
    item('Method', d.method);
    item('Created', time(d.created));
    item('Last updated', time(d.updated));
    item('TTL left', ttlText(d));
    item('Instance holding the lease', d.owner || '—');
    item('Runs', String(d.runs) + (d.rerun ? ' (re-run when its instance is lost, at most ' + d.maxRuns + ')' : ' (fails when its instance is lost)'));
    const parts = [dl, section('Request params', pre(d.params || '—'))];
    const inputs = d.inputs.map((i) => el('div', { class: 'input' },
      el('h4', {}, 'Input request ', el('code', {}, i.key), i.answered ? ' · answered' : ' · waiting for an answer'),
      pre(i.request), i.answered ? el('div', {}, el('h5', {}, 'Answer'), pre(i.response)) : null));
    parts.push(section('Input requests and answers', ...(inputs.length ? inputs : [el('p', {}, 'None.')])));
    if (d.result) parts.push(section(d.isError ? 'Result (a tool error)' : 'Result', pre(d.result, 'result')));
    if (d.error) {
      parts.push(section('Error', el('p', {}, 'JSON-RPC error ' + d.error.code + ': ', el('span', { class: 'error-message' }, d.error.message)),
        d.error.data ? pre(d.error.data) : null));
    }
    const audit = d.audit.map((a) => el('tr', {},
      el('td', {}, time(a.time)), el('td', {}, a.event), el('td', {}, a.instance),
      el('td', {}, Object.entries(a.attrs || {}).map(([k, v]) => k + '=' + v).join(' '))));
    parts.push(section('Audit trail',
      audit.length ? el('table', { class: 'audit' }, el('thead', {}, el('tr', {}, el('th', {}, 'Time'), el('th', {}, 'Event'),
        el('th', {}, 'Instance'), el('th', {}, 'Details'))), el('tbody', {}, ...audit)) : el('p', {}, 'No events recorded.'),
      d.auditLocalOnly ? el('p', { class: 'note' }, 'Events logged by this instance since it started.') : null));
    $('detail-body').replaceChildren(...parts);
    if (!dialog.open) dialog.showModal();
  }

  let cancelling = null;
  function askCancel(t) {
    cancelling = t;
    $('confirm-id').textContent = t.id;
    $('confirm-tool').textContent = t.tool || t.method;
    $('confirm-principal').textContent = t.principal;
    $('confirm-error').textContent = '';
    $('confirm').showModal();
  }

  async function confirmCancel() {
    const t = cancelling;
    try {
      const row = await api('api/tasks/' + encodeURIComponent(t.id) + '/cancel', { method: 'POST' });
      if (row) upsert(row);
      $('confirm').close();
    } catch (e) {
      if (!(e instanceof SignInNeeded)) $('confirm-error').textContent = e.message;
    }
  }

  function showSignIn() {
    if (state.events) { state.events.close(); state.events = null; }
    $('main').hidden = true;
    $('sign-out').hidden = true;
    $('sign-in').hidden = false;
    $('live').className = 'live off';
    $('live').textContent = 'signed out';
  }

  function start() {
    $('sign-in').hidden = true;
    $('main').hidden = false;
    $('sign-out').hidden = !needsSignIn;
    follow();
  }

  function tick() { // the TTL column counts down between updates
    for (const td of document.querySelectorAll('td.ttl')) {
      const exp = td.getAttribute('data-expires');
      if (exp) td.textContent = duration(new Date(exp).getTime() - now());
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('filters').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const f = new FormData(ev.target);
      state.filter = { status: f.get('status'), tool: f.get('tool').trim(), principal: f.get('principal').trim() };
      state.cursor = '';
      state.previous = [];
      loadPage();
    });
    $('filters').addEventListener('reset', () => {
      state.filter = { status: '', tool: '', principal: '' };
      state.cursor = '';
      state.previous = [];
      loadPage();
    });
    $('older').addEventListener('click', async () => {
      if (state.trimmed) await loadPage(); // for a cursor after the rows shown now
      if (!state.next) return;
      state.previous.push(state.cursor);
      state.cursor = state.next;
      loadPage();
    });
    $('newest').addEventListener('click', () => { state.cursor = ''; state.previous = []; loadPage(); });
    $('confirm-no').addEventListener('click', () => $('confirm').close());
    $('confirm-yes').addEventListener('click', confirmCancel);
    for (const b of document.querySelectorAll('[data-close]')) b.addEventListener('click', () => b.closest('dialog').close());
    $('sign-in-form').addEventListener('submit', async (ev) => {
      ev.preventDefault();
      try {
        await api('session', { method: 'POST', body: new URLSearchParams(new FormData(ev.target)) });
        ev.target.reset();
        $('sign-in-error').textContent = '';
        start();
      } catch (e) {
        $('sign-in-error').textContent = e.message;
      }
    });
    $('sign-out').addEventListener('click', async () => {
      await api('session/end', { method: 'POST' }).catch(() => {});
      showSignIn();
    });
    setInterval(tick, 1000);
    if (needsSignIn) {
      api('api/totals').then(start, () => {});
    } else {
      start();
    }
  });
})();
