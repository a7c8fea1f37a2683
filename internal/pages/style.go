// Package pages is what the HTML pages of mcpchain share: the stylesheet,
// rendering under a strict Content-Security-Policy, the headers of a page
// that must not be cached, framed or leak its URL, the same-origin and
// CSRF checks of a form, sealed cookies and records, and the keys they
// need. The OAuth proxy (package providers) and the pages of packages
// accounts and approval use it.
package pages

// Style is the one stylesheet of mcpchain's HTML pages (the OAuth proxy's
// consent and error pages, the pages of packages accounts and approval),
// inline in each page and allowed by a per-response CSP nonce: no external
// asset or font, system fonts only.
const Style = `
:root{color-scheme:light dark;--bg:#f3f4f6;--card:#fff;--fg:#111827;--muted:#4b5563;--faint:#6b7280;--line:#e5e7eb;--sunk:#f8fafc;--accent:#1d4ed8;--accent-hover:#1e40af;--accent-fg:#fff;--ok:#15803d;--note-bg:#fffbeb;--note-line:#fcd34d;--note-fg:#78350f;--ring:#93c5fd}
@media (prefers-color-scheme:dark){:root{--bg:#0b0f14;--card:#151b23;--fg:#e6edf3;--muted:#a7b1bd;--faint:#8b96a3;--line:#2a323c;--sunk:#0f141a;--accent:#4f83f7;--accent-hover:#6b97fa;--accent-fg:#06101f;--ok:#4ade80;--note-bg:#2a2110;--note-line:#8a6a1c;--note-fg:#f5d58a;--ring:#1e3a8a}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:32px 16px;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","Liberation Sans",Arial,sans-serif;-webkit-font-smoothing:antialiased}
main{width:100%;max-width:468px;background:var(--card);border:1px solid var(--line);border-radius:16px;padding:28px 32px 24px;box-shadow:0 1px 2px rgba(16,24,40,.05),0 12px 32px -8px rgba(16,24,40,.12)}
code,.mono{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace}
.server{display:flex;align-items:center;gap:12px;padding-bottom:18px;margin-bottom:22px;border-bottom:1px solid var(--line)}
.mark{flex:none;width:36px;height:36px;border-radius:10px;background:var(--accent);color:var(--accent-fg);display:grid;place-items:center}
.mark svg{width:18px;height:18px;display:block}
.mark.icon{background:none;object-fit:contain}
.server-name{font-weight:600;line-height:1.3;overflow-wrap:anywhere}
.server-sub{font-size:.8125rem;color:var(--faint);line-height:1.3}
h1{font-size:1.375rem;line-height:1.3;margin:0 0 8px;font-weight:700;letter-spacing:-.011em;overflow-wrap:anywhere}
.lede{margin:0 0 20px;color:var(--muted)}
.lede strong{color:var(--fg);font-weight:600;overflow-wrap:anywhere}
.label{font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.06em;color:var(--faint);margin:0 0 6px}
.dest{background:var(--sunk);border:1px solid var(--line);border-radius:12px;padding:14px 16px;margin:0 0 20px}
.host{font-size:1.375rem;line-height:1.25;font-weight:700;margin:0;overflow-wrap:anywhere}
.uri{font-size:.8125rem;line-height:1.4;color:var(--muted);margin:6px 0 0;overflow-wrap:anywhere}
.note{margin:12px 0 0;padding:10px 12px;border-radius:8px;background:var(--note-bg);border:1px solid var(--note-line);color:var(--note-fg);font-size:.875rem;line-height:1.45}
.scopes{list-style:none;margin:0 0 4px;padding:0}
.scopes li{position:relative;padding:7px 0 7px 28px;border-top:1px solid var(--line)}
.scopes li:first-child{border-top:0;padding-top:2px}
.scopes li::before{content:"";position:absolute;left:5px;top:.62em;width:6px;height:11px;border:solid var(--ok);border-width:0 2.5px 2.5px 0;transform:rotate(45deg)}
.scopes li:first-child::before{top:.35em}
.scopes code{display:block;font-size:.75rem;color:var(--faint);margin-top:1px;overflow-wrap:anywhere}
.actions{display:flex;gap:12px;margin:24px 0 0}
button{flex:1 1 0;min-height:48px;padding:12px 16px;border-radius:10px;font:inherit;font-weight:600;cursor:pointer;border:1px solid var(--line);background:var(--card);color:var(--fg)}
button:hover{background:var(--sunk)}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
button.primary:hover{background:var(--accent-hover);border-color:var(--accent-hover)}
button:focus-visible{outline:3px solid var(--ring);outline-offset:2px}
.fine{margin:20px 0 0;padding-top:16px;border-top:1px solid var(--line);font-size:.8125rem;line-height:1.5;color:var(--faint)}
.fine p{margin:0 0 6px}
.fine p:last-child{margin:0}
.fine code{font-size:.75rem;overflow-wrap:anywhere}
.msg{margin:0;color:var(--muted)}
.note+.label{margin-top:20px}
.args{margin:0 0 4px;padding:12px 14px;border-radius:10px;background:var(--sunk);border:1px solid var(--line);font-size:.8125rem;line-height:1.45;white-space:pre-wrap;overflow-wrap:anywhere;max-height:320px;overflow:auto}
.conns{list-style:none;margin:0;padding:0}
.conns li{display:flex;align-items:center;justify-content:space-between;gap:12px;padding:10px 0;border-top:1px solid var(--line)}
.conns li:first-child{border-top:0}
.conns form{margin:0}
.conns button{flex:none;min-height:36px;padding:6px 14px}
@media (max-width:480px){body{display:block;padding:0;background:var(--card)}main{max-width:none;min-height:100vh;border:0;border-radius:0;box-shadow:none;padding:20px 20px 28px}h1{font-size:1.3rem}.actions{flex-direction:column-reverse;gap:10px}}
`

// LockIcon is the server's mark: a padlock, inline so the page loads nothing.
const LockIcon = `<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><rect x="4" y="10.5" width="16" height="10.5" rx="2.5"/><path d="M8 10.5V7.5a4 4 0 0 1 8 0v3"/></svg>`

// Head opens a page: the title, the nonce-allowed style and the server's
// header; the template's data has Title, Nonce, Server, ServerHost,
// ServerIcon and Sub.
const Head = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex,nofollow">
<title>{{.Title}}</title>
<style nonce="{{.Nonce}}">` + Style + `</style></head>
<body><main aria-labelledby="title">
<header class="server">
{{- if .ServerIcon}}
<img class="mark icon" id="server-icon" src="{{.ServerIcon}}" alt="" width="36" height="36">
{{- else}}
<span class="mark">` + LockIcon + `</span>
{{- end}}
<div><div class="server-name" id="server-name">{{.Server}}</div><div class="server-sub">{{if .ServerHost}}<span id="server-host">{{.ServerHost}}</span> · {{end}}{{.Sub}}</div></div>
</header>
`

// Foot closes a page opened by Head.
const Foot = `</main></body></html>
`
