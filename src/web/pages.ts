import type { Principal } from '../server/auth.ts';
import { html, type Html } from './html.ts';
import { reveal } from '../core/reveal.ts';

/**
 * The UI's pages as HTML shells. Each carries the reviewer, the session's CSRF
 * token and one module script; the script fetches the API and renders with
 * DOM calls (text nodes only), so nothing dynamic is ever parsed as markup.
 */

/** Where the reviewer is, for the navigation. */
export type PageKey = 'queue' | 'review' | 'thread' | 'metrics' | 'batch' | 'attention';

interface PageInput {
  key: PageKey;
  title: string;
  principal: Principal;
  csrf: string;
  script: string;
  /** `data-*` attributes of <main>, for the script (ids from the URL). */
  data?: Record<string, string>;
  body: Html;
}

function head(title: string, script?: string, csrf?: string): Html {
  return html`<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
${csrf === undefined ? '' : html`<meta name="csrf-token" content="${csrf}">`}
<title>${title} · Interlock</title>
<link rel="icon" href="/ui/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/app.css">
${script === undefined ? '' : html`<script type="module" src="/ui/js/${script}"></script>`}`;
}

function navLink(href: string, label: Html | string, current: boolean): Html {
  return html`<a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a>`;
}

/** A signed-in page: top bar with navigation, queue count and sign-out; `body` in <main>. */
export function page(p: PageInput): string {
  const data = Object.entries(p.data ?? {}).map(([k, v]) => html` data-${k}="${v}"`);
  const who = p.principal;
  return `<!doctype html>\n${
    html`<html lang="en">
<head>
${head(p.title, p.script, p.csrf)}
</head>
<body data-page="${p.key}" data-reviewer-id="${who.id}" data-reviewer-name="${who.name}" data-roles="${who.roles.join(',')}"${who.operator ? html` data-operator="true"` : ''}>
<a class="skip-link" href="#main">Skip to content</a>
<header class="topbar">
  <a class="brand" href="/"><img src="/ui/favicon.svg" alt="" width="22" height="22"> Interlock</a>
  <nav aria-label="Main">
    ${navLink('/', html`Queue <span class="badge" id="queue-count" aria-live="polite" aria-label="pending requests">·</span>`, p.key === 'queue' || p.key === 'review' || p.key === 'batch')}
    ${navLink('/metrics-dashboard', 'Metrics', p.key === 'metrics')}
    <a href="/attention" id="attention-link" class="attention-link"${p.key === 'attention' ? html` aria-current="page"` : html` hidden`}>Needs attention (<span id="attention-count">0</span>)</a>
  </nav>
  <span class="live" id="live" role="status" data-state="connecting">connecting…</span>
  <div class="who">
    <span class="who-name">${reveal(who.name)}</span>
    <span class="who-roles">${who.roles.join(', ')}</span>
    <form method="post" action="/signout" class="signout">
      <input type="hidden" name="csrf" value="${p.csrf}">
      <button type="submit" class="btn btn-quiet">Sign out</button>
    </form>
  </div>
</header>
<main id="main" tabindex="-1"${data}>
${p.body}
</main>
<div class="toast" id="toast" role="status" aria-live="polite"></div>
<dialog id="shortcuts" aria-labelledby="shortcuts-title">
  <h2 id="shortcuts-title">Keyboard shortcuts</h2>
  <dl class="keys" id="shortcuts-list"></dl>
  <form method="dialog"><button class="btn">Close</button></form>
</dialog>
</body>
</html>`.value
  }`;
}

/** The sign-in page: a form that posts a reviewer token once and gets a session cookie. */
export function signInPage(o: { csrf: string; next: string; error?: string }): string {
  return `<!doctype html>\n${
    html`<html lang="en">
<head>
${head('Sign in')}
</head>
<body data-page="signin">
<main id="main" class="signin">
  <form method="post" action="/session" class="card signin-card">
    <h1><img src="/ui/favicon.svg" alt="" width="28" height="28"> Interlock</h1>
    <p class="muted">Sign in with your reviewer token. It is sent once; the browser then keeps a session cookie that scripts cannot read.</p>
    ${o.error ? html`<p class="alert alert-error" role="alert" id="signin-error">${o.error}</p>` : ''}
    <input type="hidden" name="csrf" value="${o.csrf}">
    <input type="hidden" name="next" value="${o.next}">
    <label for="token">Reviewer token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required autofocus spellcheck="false" placeholder="il_…"${o.error ? html` aria-invalid="true" aria-describedby="signin-error"` : ''}>
    <button type="submit" class="btn btn-primary">Sign in</button>
    <p class="muted small" id="signin-help">No token? An operator creates one with <code>interlock reviewers add --name NAME --roles ROLE</code> where Interlock is installed, or <code>npm run interlock -- reviewers add --name NAME --roles ROLE</code> inside a clone of the repository.</p>
  </form>
</main>
</body>
</html>`.value
  }`;
}

const loading = html`<p class="muted loading" role="status">Loading…</p>`;

/** The approval queue. */
export function queueBody(): Html {
  return html`<div class="page-head">
  <h1>Approval queue <span class="badge badge-big" id="queue-count-head" aria-hidden="true"></span></h1>
  <p class="muted" id="queue-summary" role="status">Pending requests you can review, soonest expiry first.</p>
</div>
<form class="filters" id="filters" aria-label="Filter the queue">
  <label>Role <select name="role" id="filter-role"><option value="">All roles</option></select></label>
  <label>Tool <select name="tool" id="filter-tool"><option value="">All tools</option></select></label>
  <label>Tier <select name="tier" id="filter-tier"><option value="">All tiers</option><option value="approve">approve</option><option value="escalate">escalate</option></select></label>
  <label>Group <select name="group" id="filter-group"><option value="">No grouping</option><option value="thread">By thread</option><option value="tool">By tool</option></select></label>
</form>
<div id="queue">${loading}</div>
<p class="muted small hint">Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>Enter</kbd> open, <kbd>?</kbd> all shortcuts.</p>`;
}

/** The review card of one request. */
export function reviewBody(): Html {
  return html`<p class="crumbs"><a href="/">← Queue</a></p><div id="card">${loading}</div>`;
}

/** A thread's timeline. */
export function threadBody(): Html {
  return html`<p class="crumbs"><a href="/">← Queue</a></p><div id="timeline">${loading}</div>`;
}

/** The metrics charts. */
export function metricsBody(): Html {
  return html`<div class="page-head">
  <h1>Metrics</h1>
  <form class="filters" id="window-form" aria-label="Time window">
    <label>Window <select name="window" id="window">
      <option value="1h">last hour</option><option value="24h" selected>last 24 hours</option><option value="7d">last 7 days</option><option value="30d">last 30 days</option>
    </select></label>
  </form>
</div>
<div id="dashboard">${loading}</div>`;
}

/** Batch review of one thread's or one tool's requests. */
export function batchBody(): Html {
  return html`<p class="crumbs"><a href="/">← Queue</a></p><div id="batch">${loading}</div>`;
}

/** Approved actions that failed when they ran: the reviewer's to follow up. */
export function attentionBody(): Html {
  return html`<div class="page-head">
  <h1 id="attention-title" tabindex="-1">Needs attention</h1>
  <p class="muted" id="attention-summary" role="status">Actions you approved that failed when they ran, newest first.</p>
</div>
<div id="attention">${loading}</div>`;
}

/** A plain error page for form posts that cannot go on (e.g. an expired form). */
export function errorPage(title: string, message: string, link: { href: string; label: string }): string {
  return `<!doctype html>\n${
    html`<html lang="en">
<head>
${head(title)}
</head>
<body data-page="error">
<main id="main" class="signin">
  <div class="card signin-card">
    <h1>${title}</h1>
    <p role="alert">${message}</p>
    <p><a class="btn btn-primary" href="${link.href}">${link.label}</a></p>
  </div>
</main>
</body>
</html>`.value
  }`;
}
