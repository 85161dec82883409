/** The site's stylesheet, inlined into the page. */
export const STYLE = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5b6475; --line: #dfe3ea; --soft: #f5f7fa; --accent: #2f5bd3; --warn: #a14b00; --bad: #b42318; --ok: #18794e; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
header { padding: 24px 32px 12px; border-bottom: 1px solid var(--line); background: var(--soft); }
h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 0; color: var(--muted); }
main { padding: 16px 32px 48px; max-width: 1200px; }
.controls { display: flex; flex-wrap: wrap; gap: 12px 20px; align-items: center; padding: 12px 0 16px; }
.controls label { display: inline-flex; gap: 6px; align-items: center; color: var(--muted); }
#search { flex: 1 1 280px; max-width: 440px; font: inherit; padding: 8px 12px; border: 1px solid #b9c0cc; border-radius: 6px; }
select { font: inherit; padding: 6px 8px; border: 1px solid #b9c0cc; border-radius: 6px; background: #fff; }
#result-count { margin: 0 0 12px; color: var(--muted); }
#connector-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
.connector { border: 1px solid var(--line); border-radius: 8px; background: #fff; }
.connector { transition: box-shadow .15s, border-color .15s; }
.connector:hover, .connector:focus-within { border-color: #b9c6e6; box-shadow: 0 1px 6px rgba(31, 56, 120, .12); }
.connector > details > summary { list-style: none; cursor: pointer; padding: 14px 16px; display: grid; grid-template-columns: 1fr auto; gap: 4px 16px; border-radius: 8px; }
.connector > details > summary::-webkit-details-marker { display: none; }
.connector > details > summary:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.connector > details[open] > summary { border-bottom: 1px solid var(--line); background: var(--soft); border-radius: 8px 8px 0 0; }
.open-hint { font-size: 13px; color: var(--accent); white-space: nowrap; align-self: center; margin-left: 6px; }
.open-hint .when-open, details[open] > summary .open-hint .when-closed { display: none; }
details[open] > summary .open-hint .when-open { display: inline; }
.chevron { display: inline-block; transition: transform .15s; }
details[open] > summary .chevron { transform: rotate(90deg); }
.intro { max-width: 860px; color: var(--ink); }
.intro pre, pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; overflow-x: auto; font-size: 12.5px; }
.description p { margin: 0 0 6px; }
details.example { margin-top: 6px; }
details.example > summary { cursor: pointer; color: var(--accent); }
.run-line { display: flex; gap: 8px; align-items: flex-start; margin: 6px 0; }
.run-line code { flex: 1; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; word-break: break-all; }
button.copy { font: inherit; font-size: 12px; padding: 4px 10px; border: 1px solid #b9c0cc; border-radius: 6px; background: #fff; cursor: pointer; }
button.copy:hover { border-color: var(--accent); color: var(--accent); }
.example-label { margin: 6px 0 2px; color: var(--muted); font-size: 12px; }
.permalink { color: var(--accent); }
.name { font-size: 17px; font-weight: 600; }
.key { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--muted); font-weight: 400; font-size: 13px; margin-left: 6px; }
.meta { color: var(--muted); font-size: 13px; }
.summary-text { grid-column: 1 / -1; margin: 0; }
.badges { display: flex; gap: 6px; flex-wrap: wrap; justify-content: flex-end; align-items: start; }
.badge { font-size: 12px; padding: 1px 8px; border-radius: 999px; border: 1px solid var(--line); background: var(--soft); white-space: nowrap; }
.badge.status-beta, .badge.status-alpha { border-color: #f0c68c; background: #fff6e8; color: var(--warn); }
.badge.status-stable { border-color: #a6dcc0; background: #ecf9f1; color: var(--ok); }
.badge.status-deprecated, .badge.todo { border-color: #f3b2ac; background: #fdeceb; color: var(--bad); }
.badge.billable { border-color: #f0c68c; background: #fff6e8; color: var(--warn); }
.badge.destructive { border-color: #f0b4b4; background: #fff0f0; color: var(--bad); }
.badge.approval { border-color: #b8c7f3; background: #eef2fd; color: var(--accent); }
.body { padding: 8px 16px 16px; }
h3 { font-size: 15px; margin: 18px 0 8px; }
h4 { font-size: 14px; margin: 14px 0 6px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.yes { color: var(--bad); font-weight: 600; }
.muted { color: var(--muted); }
ul.limitations { margin: 0; padding-left: 20px; }
#empty { color: var(--muted); padding: 24px 0; }
footer { color: var(--muted); font-size: 12px; padding: 0 32px 24px; }
`;
