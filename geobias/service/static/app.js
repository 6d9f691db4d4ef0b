// geobias web app: submits an analysis's form (POST /app/run: a quick analysis answers at once, a long
// one becomes a job), follows a job's progress, shows the result.
// Plain JavaScript, no build step, nothing loaded from elsewhere. Every text the server did not
// render itself is put in the page with textContent (never as HTML).
"use strict";

(function () {
  const form = document.getElementById("run");
  if (!form) return;
  const kind = form.dataset.kind;
  const $ = (id) => document.getElementById(id);

  function words(text) {
    return text.split(/[\n,]/).map((w) => w.trim()).filter((w) => w.length > 0);
  }

  function rows(text) {
    return text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0)
      .map((l) => l.split(l.includes("\t") ? "\t" : ",").map((c) => c.trim()));
  }

  // The form's values as the command's parameters (empty optional fields are left to the model's defaults).
  function params() {
    const out = {};
    for (const el of form.querySelectorAll("[data-widget]")) {
      const w = el.dataset.widget, name = el.name;
      if (w === "bool") { out[name] = el.checked; continue; }
      const raw = el.value.trim();
      if (raw === "") continue;
      if (w === "int") out[name] = Number.parseInt(raw, 10);
      else if (w === "float") out[name] = Number.parseFloat(raw);
      else if (w === "list") out[name] = words(raw);
      else if (w === "rows") out[name] = rows(raw);
      else if (w === "inline") out[name] = { text: el.value };
      else if (w === "json") {
        try { out[name] = JSON.parse(raw); } catch (e) { throw new Error(name + ": not valid JSON"); }
      } else out[name] = raw;
    }
    return out;
  }

  // The field a one-line error names: its first word ("seed must be ...", "targets_x: no such ..."),
  // else the first field name the message mentions ("give both targets_x and targets_y").
  function fieldOf(message) {
    const first = (message.match(/^([A-Za-z_][A-Za-z0-9_]*)[\s:]/) || [])[1];
    const named = (name) => form.querySelector("[name='" + CSS.escape(name) + "']");
    if (first && named(first)) return named(first);
    for (const el of form.querySelectorAll("[name]")) {
      if (new RegExp("(^|[^A-Za-z0-9_`-])`?" + el.name + "`?([^A-Za-z0-9_]|$)").test(message)) return el;
    }
    return null;
  }

  // A form with an optional language and an optional store needs one of the two (a run needs vectors).
  function missingStore() {
    const lang = form.querySelector("[data-widget='lang'][name='lang']");
    const store = form.querySelector("[data-widget='store'][name='vectors'], [data-widget='store'][name='store']");
    if (!lang || !store || lang.dataset.required || store.dataset.required) return null;
    return lang.value || store.value ? null : store.name + ": choose a language or a store (this run needs vectors)";
  }

  // A message in the form's words: each field name it mentions becomes the field's label
  // ("raise `lost_vocabulary_threshold`" → "raise “Largest share of a word set that may be missing”").
  // A name counts where a message names a field: in backticks, with an underscore, or first
  // ("seed must be ..."); a plain word such as "vectors" in a sentence stays as it is.
  function inWords(message) {
    let out = message;
    const fields = [...form.querySelectorAll("[data-label]")].sort((a, b) => b.name.length - a.name.length);
    const said = (el) => "\u201c" + el.dataset.label + "\u201d";
    for (const el of fields) {
      out = out.split("`" + el.name + "`").join(said(el));
      if (el.name.includes("_")) {
        const re = new RegExp("(^|[^A-Za-z0-9_-])" + el.name + "(?=[^A-Za-z0-9_]|$)", "g");
        out = out.replace(re, (m, lead) => lead + said(el));
      } else if (new RegExp("^" + el.name + "([\\s:]|$)").test(out)) {
        out = said(el) + out.slice(el.name.length);
      }
    }
    return out;
  }

  function showError(message) {
    $("error").textContent = inWords(message || "");
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    const el = fieldOf(message || "");
    if (el) {
      const fold = el.closest("details");
      if (fold) fold.open = true;
      el.setAttribute("aria-invalid", "true"); el.focus();
    }
  }

  async function errorOf(resp) {
    try { const body = await resp.json(); return body.error ? body.error.message : resp.statusText; }
    catch (e) { return resp.status + " " + resp.statusText; }
  }

  function link(href, text) {
    const a = document.createElement("a");
    a.href = href; a.textContent = text;
    return a;
  }

  const FINISHED = ["done", "failed", "cancelled"];

  function showState(job) {
    const bar = $("bar"), p = job.progress || {};
    if (typeof p.fraction === "number") { bar.value = p.fraction; bar.dataset.fraction = p.fraction; }
    else if (FINISHED.includes(job.state)) bar.value = Number(bar.dataset.fraction || 0);  // stopped: no animation
    else bar.removeAttribute("value");
    $("state").textContent = job.state;
    $("state").className = "state-" + job.state;
    $("message").textContent = (p.last_message || "") + (p.elapsed_s != null ? " (" + p.elapsed_s.toFixed(p.elapsed_s < 1 ? 3 : 1) + " s)" : "");
  }

  async function follow(job) {
    const bar = $("bar"), links = $("links");
    links.replaceChildren(link("/jobs/" + job.id + "/report", "report page"), " · ",
      link("/jobs/" + job.id, "job record (JSON)"));
    const cancel = document.createElement("span");
    const button = document.createElement("button");
    button.type = "button"; button.textContent = "Cancel"; button.id = "cancel";
    button.onclick = () => fetch("/jobs/" + job.id, { method: "DELETE" });
    cancel.append(" · ", button);
    if (!FINISHED.includes(job.state)) links.append(cancel);
    showState(job);
    while (!FINISHED.includes(job.state)) {  // a quick analysis arrives done: nothing to poll
      await new Promise((r) => setTimeout(r, 400));
      const resp = await fetch("/jobs/" + job.id, { headers: { Accept: "application/json" } });
      if (!resp.ok) {
        showError(await errorOf(resp));
        bar.value = Number(bar.dataset.fraction || 0);
        $("submit").disabled = false;
        return;
      }
      job = await resp.json();
      showState(job);
    }
    cancel.remove();
    if (job.state === "done") {
      bar.value = 1;
      const view = await fetch("/app/jobs/" + job.id + "/view");
      // server-rendered HTML: every user-given text in it is escaped by the server
      $("result").innerHTML = await view.text();
    } else {
      const err = job.error || {};
      showError((err.type ? err.type + ": " : "") + (err.message || job.state));
    }
    $("submit").disabled = false;
  }

  // The built-in tests a language has: the others are not offered while it is chosen.
  const lang = form.querySelector("[data-widget='lang']");
  const tests = form.querySelector("[data-widget='weat-test']");
  function offerTests() {
    if (!lang || !tests) return;
    for (const opt of tests.options) {
      if (!opt.dataset.langs) continue;
      opt.hidden = opt.disabled = lang.value !== "" && !opt.dataset.langs.split(" ").includes(lang.value);
    }
    if (tests.selectedOptions[0] && tests.selectedOptions[0].disabled) tests.value = "";
  }
  if (lang && tests) { lang.addEventListener("change", offerTests); offerTests(); }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    let body;
    try { body = { kind: kind, params: params() }; } catch (e) { showError(e.message); return; }
    const missing = missingStore();
    if (missing) { showError(missing); return; }
    $("submit").disabled = true;
    $("result").replaceChildren();
    const resp = await fetch("/app/run", {
      method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    if (!resp.ok) {
      showError(await errorOf(resp));
      $("submit").disabled = false;
      return;
    }
    const job = await resp.json();
    $("job").hidden = false;
    $("job").dataset.jobId = job.id;
    $("job").scrollIntoView({ block: "start" });
    follow(job);
  });
})();
