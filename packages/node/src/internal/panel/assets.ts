/**
 * The panel's style sheet and its one small script, served from the panel itself (`/panel.css`, `/panel.js`), so the
 * page's content security policy allows no inline script or style. The page works without the script; it says that a
 * request is on its way while the model answers, shows times in the browser's own time zone (UTC without it), and
 * filters entries as the words are typed (without it, when the filter is sent).
 */

/** The style sheet. */
export const css = `
:root { color-scheme: light; --ink: #1d232b; --dim: #66707c; --line: #d9dee4; --ok: #1f7a3d; --near: #a15c00;
  --full: #b3261e; --paper: #fbfcfd; --card: #ffffff; --accent: #2856c9; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  background: var(--paper); }
header { display: flex; gap: 1.5rem; align-items: baseline; padding: .8rem 1.5rem; border-bottom: 1px solid var(--line);
  background: var(--card); }
header strong { font-size: 1.05rem; }
header nav a { margin-right: 1rem; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; display: flex; gap: .8rem; align-items: center; flex-wrap: wrap; }
section.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem;
  margin: 1rem 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--dim); font-size: .85rem; }
meter { width: 10rem; height: 1rem; vertical-align: middle; }
.size { font-variant-numeric: tabular-nums; margin-left: .4rem; }
.size.near, .near { color: var(--near); font-weight: 600; }
.size.full, .full { color: var(--full); font-weight: 600; }
.ok { color: var(--ok); font-weight: 600; }
.failed { color: var(--full); font-weight: 600; }
.dim, .meta { color: var(--dim); font-size: .85rem; }
ul.entries { list-style: none; padding: 0; margin: .2rem 0 .6rem; }
ul.entries li { display: flex; gap: .6rem; align-items: flex-start; padding: .3rem 0; border-bottom: 1px dashed var(--line); }
ul.entries li .text { flex: 1; overflow-wrap: anywhere; }
ul.entries li.note .text { white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: .85rem;
  color: var(--dim); }
ul.entries li.heading .text { font-weight: 600; color: var(--dim); }
details.edit { display: inline-block; }
details.edit[open] { display: block; width: 100%; margin-top: .3rem; }
form.inline { display: inline; }
form.row { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; margin: .4rem 0; }
form.add input.wide { flex: 1; width: auto; min-width: 16rem; }
form.add input.topic { width: 10rem; }
.new-topic .label { margin: .8rem 0 0; }
form.search { margin: 1rem 0 0; }
form.search input[type=search] { flex: 1; max-width: 28rem; font: inherit; padding: .3rem .45rem;
  border: 1px solid var(--line); border-radius: 5px; background: #fff; }
input[type=text], textarea, select { font: inherit; padding: .3rem .45rem; border: 1px solid var(--line);
  border-radius: 5px; background: #fff; }
input[type=text].wide, textarea { width: 100%; }
textarea { min-height: 4.5rem; }
button { font: inherit; padding: .25rem .7rem; border-radius: 5px; border: 1px solid var(--line); background: #f3f5f8;
  cursor: pointer; }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button.danger { color: var(--full); }
button[disabled] { opacity: .6; cursor: wait; }
.notice { border-radius: 6px; padding: .6rem .9rem; margin: 1rem 0; display: flex; gap: 1rem; align-items: baseline; }
.notice .said { white-space: pre-wrap; flex: 1; }
.notice.ok { background: #e8f5ec; border: 1px solid #b7dfc3; color: var(--ink); font-weight: normal; }
.notice.refused { background: #fdecea; border: 1px solid #f3c1bc; }
.notice.info { background: #eef3fb; border: 1px solid #c9d7f1; }
.reply { white-space: pre-wrap; background: #f6f8fa; border-left: 3px solid var(--accent); padding: .5rem .8rem; }
ins { text-decoration: none; color: var(--ok); }
del { color: var(--full); }
.busy { display: none; color: var(--dim); margin-left: .5rem; }
ol.transcript { list-style: none; padding: 0; }
ol.transcript li { display: flex; gap: .6rem; padding: .3rem .4rem; border-bottom: 1px dashed var(--line); }
ol.transcript li.cited { background: #fff7d6; border-left: 3px solid var(--near); }
ol.transcript .seq { color: var(--dim); font-variant-numeric: tabular-nums; min-width: 3rem; }
ol.transcript .who { color: var(--dim); white-space: nowrap; }
ol.transcript .said { flex: 1; white-space: pre-wrap; overflow-wrap: anywhere; }
form.waiting .busy { display: inline; }
`

/**
 * The script: a form that asks the model says so while it waits, and is not sent twice; every time is shown in the
 * browser's own time zone (`2026-12-02 23:03:11 GMT+9`), the UTC time the server wrote kept as its title; the filter
 * box hides the entries and notes whose words do not hold what is typed, as it is typed (the server filters the same
 * way, by the same lower-cased text, when the box is sent without the script).
 */
export const script = `
function twoDigits(n) { return String(n).padStart(2, "0") }
function zoneOf(date) {
  var part = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }).formatToParts(date)
    .find(function (part) { return part.type === "timeZoneName" })
  return part === undefined ? "" : " " + part.value
}
document.querySelectorAll("time[datetime]").forEach(function (node) {
  var date = new Date(node.getAttribute("datetime"))
  if (isNaN(date.getTime())) return
  node.title = node.textContent
  node.textContent = date.getFullYear() + "-" + twoDigits(date.getMonth() + 1) + "-" + twoDigits(date.getDate()) +
    " " + twoDigits(date.getHours()) + ":" + twoDigits(date.getMinutes()) + ":" + twoDigits(date.getSeconds()) +
    zoneOf(date)
})

document.querySelectorAll("form.search").forEach(function (form) {
  var field = form.querySelector("input[name=q]")
  var said = form.querySelector(".matches")
  function filter() {
    var words = field.value.trim().toLowerCase()
    var entries = 0
    var shown = 0
    document.querySelectorAll("li[data-search]").forEach(function (row) {
      var match = words === "" || row.dataset.search.indexOf(words) >= 0
      row.hidden = !match
      if (row.classList.contains("entry")) {
        entries += 1
        if (match) shown += 1
      }
    })
    said.textContent = words === "" ? "" : shown.toLocaleString("en-US") + " of " + entries.toLocaleString("en-US") +
      (entries === 1 ? " entry" : " entries") + " shown"
  }
  field.addEventListener("input", filter)
  form.addEventListener("submit", function (event) {
    event.preventDefault()
    filter()
  })
})

document.querySelectorAll("form[data-busy]").forEach(function (form) {
  form.addEventListener("submit", function () {
    form.classList.add("waiting")
    setTimeout(function () {
      form.querySelectorAll("button").forEach(function (button) { button.disabled = true })
    }, 0)
  })
})
`
