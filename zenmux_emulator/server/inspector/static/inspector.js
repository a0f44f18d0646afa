// The inspector page: plain DOM, no framework, no build step, nothing from another origin. It reads the
// control API (/_emulator/…) and the live list (/_emulator/ui/events); it changes nothing but a session's
// reset. Every face's entries read the same way: a face the page has never heard of still lists, opens and
// explains; the conversation view knows the message shapes of chat, Anthropic and Responses bodies.
"use strict";

const API = "/_emulator";
const SESSIONS_SHOWN = 50; // the rules view asks for the positions of the sessions seen last, up to this many
const rows = new Map(); // seq → row (the list's summary of a journal entry)
const state = { paused: false, queued: [], selected: null, entry: null, tab: "request", faces: [], rules: null };
const $ = (selector) => document.querySelector(selector);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "style") Object.assign(node.style, value); // CSSOM: the page's policy refuses style attributes
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function call(path, options = {}) {
  const response = await fetch(API + path, { credentials: "same-origin", ...options });
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `${response.status} ${text}`;
    throw new Error(message);
  }
  return data;
}

function notice(text, bad = false) {
  const node = $("#notice");
  node.textContent = text;
  node.className = bad ? "bad" : "";
}

const ms = (value) => (value === null || value === undefined ? "" : value < 10 ? value.toFixed(1) : Math.round(value));
const clock = (seconds) => {
  if (!seconds) return "";
  const d = new Date(seconds * 1000);
  return d.toLocaleTimeString([], { hour12: false }) + "." + String(d.getMilliseconds()).padStart(3, "0");
};
const pretty = (value) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));
const statusClass = (status) => (status ? "s" + String(status)[0] : "");

// ---- the live list ------------------------------------------------------------------------------------

function matches(row) {
  const face = $("#f-face").value, outcome = $("#f-match").value, status = $("#f-status").value;
  const session = $("#f-session").value, text = $("#f-text").value.trim().toLowerCase();
  if (face && row.api !== face) return false;
  if (outcome === "matched" && !row.rule) return false;
  if (outcome === "unmatched" && !row.unmatched) return false;
  if (status === "none" ? row.status !== null : status && String(row.status || "")[0] !== status) return false;
  if (session && row.session !== session) return false;
  if (text) {
    const hay = [row.path, row.last_user, row.model, row.rule, row.error_type, row.fault, row.misbehaved, row.session, row.api, row.request_id,
      row.status].join(" ").toLowerCase();
    if (!hay.includes(text)) return false;
  }
  return true;
}

function ruleCell(row) {
  if (row.unmatched) return el("span", { class: "unmatched", text: "UNMATCHED" });
  if (!row.rule) return el("span", { class: "hint", text: "—" });
  return el("span", {}, row.rule, el("span", { class: "chip", text: `#${row.reply_index}` }));
}

function rowNode(row) {
  const t = row.tokens || {};
  const tokens = [t.prompt, t.completion, t.reasoning].map((n) => (n === null || n === undefined ? "·" : n)).join(" / ");
  const trouble = [row.error_type, row.fault, row.misbehaved ? `misbehaved: ${row.misbehaved}` : null, row.dropped ? "dropped" : null, row.client_gone ? "client gone" : null]
    .filter(Boolean).join(", ");
  return el("tr", { "data-seq": row.seq, "data-worker": row.worker, class: row.seq === state.selected ? "selected" : null,
    onclick: () => openEntry(row.seq) },
  el("td", { class: "num", text: row.seq }),
  el("td", { text: clock(row.arrived) }),
  el("td", {}, el("span", { class: "chip", text: row.api || "—" })),
  el("td", { class: "path", title: row.path }, `${row.method} ${row.path}`,
    row.last_user ? el("div", { class: "last-user hint", title: row.last_user, text: row.last_user }) : null),
  el("td", { text: row.model || "" }),
  el("td", { text: row.session || "" }),
  el("td", { class: "rule" }, ruleCell(row)),
  el("td", { class: trouble ? "bad" : "", text: trouble }),
  el("td", { class: "num " + statusClass(row.status), text: row.status ?? "—" }),
  el("td", { text: row.stream ? "SSE" : "" }),
  el("td", { class: "num", text: ms(row.first_byte_ms) }),
  el("td", { class: "num", text: ms(row.duration_ms) }),
  el("td", { class: "num", text: tokens }));
}

function render() {
  const body = $("#requests tbody");
  const shown = [...rows.values()].filter(matches).sort((a, b) => b.seq - a.seq);
  body.replaceChildren(...shown.map(rowNode));
  $("#empty").hidden = rows.size > 0;
  const unmatched = [...rows.values()].filter((r) => r.unmatched).length;
  $("#counts").textContent = `${shown.length} shown of ${rows.size} · ${unmatched} unmatched`;
}

let pending = false;
function scheduleRender() { // one redraw per frame, however many rows arrive in it
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; render(); });
}

function options(select, values) {
  const current = select.value;
  const known = new Set([...select.options].map((o) => o.value));
  for (const value of values) if (value && !known.has(value)) select.append(el("option", { value, text: value }));
  select.value = current;
}

function add(row) {
  rows.set(row.seq, row);
  options($("#f-session"), [row.session]);
  options($("#f-face"), [row.api]);
}

function connect() {
  const source = new EventSource(`${API}/ui/events`);
  source.addEventListener("row", (event) => {
    const row = JSON.parse(event.data);
    if (state.paused) { state.queued.push(row); $("#live").textContent = `paused (${state.queued.length} new)`; return; }
    add(row);
    scheduleRender();
  });
  source.onerror = () => { $("#live").textContent = state.paused ? "paused" : "reconnecting…"; };
  source.onopen = () => { if (!state.paused) $("#live").textContent = "live"; };
}

function togglePause() {
  state.paused = !state.paused;
  $("#pause").setAttribute("aria-pressed", String(state.paused));
  $("#pause").textContent = state.paused ? "Resume" : "Pause";
  $("#live").classList.toggle("paused", state.paused);
  $("#live").textContent = state.paused ? "paused" : "live";
  if (!state.paused) {
    state.queued.splice(0).forEach(add);
    render();
  }
}

// ---- one request ----------------------------------------------------------------------------------------

async function fetchEntry(seq) {
  const page = await call(`/journal?before=${seq + 1}&limit=1`);
  const entry = page.entries.find((e) => e.seq === seq);
  if (!entry) throw new Error(`request #${seq} is no longer in the journal`);
  return entry;
}

async function openEntry(seq) {
  state.selected = seq;
  render();
  $("#detail").hidden = false;
  notice("");
  try {
    state.entry = await fetchEntry(seq);
  } catch (error) {
    notice(error.message, true);
    return;
  }
  const entry = state.entry;
  $("#detail-title").textContent = `#${entry.seq} ${entry.method} ${entry.path} → ${entry.status ?? "no answer"}`;
  $("#tabs [data-tab=why]").hidden = !rows.get(seq)?.unmatched;
  if (state.tab === "why" && !rows.get(seq)?.unmatched) state.tab = "request";
  showTab(state.tab);
}

function showTab(name) {
  state.tab = name;
  for (const button of document.querySelectorAll("#tabs button")) button.classList.toggle("on", button.dataset.tab === name);
  const entry = state.entry;
  const body = $("#tab-body");
  body.replaceChildren();
  if (!entry) return;
  const views = { request: requestView, response: responseView, conversation: conversationView, why: whyView,
    checks: checksView, raw: (e) => [el("pre", { text: pretty(e) })] };
  Promise.resolve(views[name](entry)).then((nodes) => body.replaceChildren(...nodes))
    .catch((error) => body.replaceChildren(el("p", { class: "bad", text: error.message })));
}

function kv(pairs) {
  return el("dl", { class: "kv" }, pairs.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v ?? "" })]));
}

function requestView(entry) {
  return [
    kv([["request id", entry.request_id], ["face", entry.api], ["session", entry.session],
      ["rule", entry.rule ? `${entry.rule} (reply #${entry.reply_index})` : rows.get(entry.seq)?.unmatched ? "UNMATCHED" : "—"],
      ["stream", String(entry.stream)], ["worker (pid)", entry.worker], ["arrived", new Date(entry.arrived * 1000).toISOString()]]),
    el("h3", { text: "Headers (credentials masked)" }),
    kv(Object.entries(entry.headers || {})),
    el("h3", { text: "Body" }),
    el("pre", { text: pretty(entry.body) }),
  ];
}

// ---- the response and its SSE timeline ----------------------------------------------------------------------

function parseEvent(text) {
  let name = null;
  const data = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  const raw = data.join("\n");
  let json = null;
  try { json = raw && raw !== "[DONE]" ? JSON.parse(raw) : null; } catch { json = null; }
  if (!name && json && typeof json.type === "string") name = json.type;
  if (!name && json && json.object) name = json.object;
  return { name: name || (raw === "[DONE]" ? "[DONE]" : text.startsWith(":") ? "comment" : "data"), raw, json, text };
}

async function responseView(entry) {
  const media = await mediaView(entry);
  const headers = [el("h3", { text: "Headers" }), kv(Object.entries(entry.response_headers || {}))];
  if (!Array.isArray(entry.response)) {
    return [...media, ...headers, el("h3", { text: "Body" }), el("pre", { text: pretty(entry.response) })];
  }
  return [...media, timeline(entry), ...headers];
}

// The pictures, sounds and videos a reply carried, loaded from this origin (/_emulator/ui/media/…): the page's
// policy lets it show nothing from anywhere else. At most MEDIA_SHOWN of them, each a thumbnail or a player.
const MEDIA_SHOWN = 8;

const MEDIA_HINT = /^(audio|image|video)\/|"(b64_json|bytesBase64Encoded|inlineData|audio)\\?"/;

function mayCarryMedia(entry) { // asked of the server only when the entry looks like it: most replies are text
  const headers = entry.response_headers || {};
  const type = Object.entries(headers).find(([name]) => name.toLowerCase() === "content-type");
  if (type && MEDIA_HINT.test(type[1])) return true;
  const response = entry.response ?? "";
  const body = Array.isArray(response) ? response.join("\n") : typeof response === "string" ? response : JSON.stringify(response);
  return MEDIA_HINT.test(body);
}

async function mediaView(entry) {
  if (!entry.status || entry.status >= 400 || !mayCarryMedia(entry)) return [];
  let listed;
  try { listed = (await call(`/ui/media/${entry.seq}`)).media; } catch { return []; }
  if (!listed.length) return [];
  const source = (piece) => `${API}/ui/media/${entry.seq}/${piece.index}`;
  const shown = listed.slice(0, MEDIA_SHOWN).map((piece) => {
    const label = `${piece.content_type}, ${piece.bytes} bytes`;
    if (piece.kind === "image") {
      return el("a", { href: source(piece), target: "_blank", rel: "noopener", title: label },
        el("img", { class: "thumb", src: source(piece), alt: `image ${piece.index + 1} (${label})` }));
    }
    const player = el(piece.kind === "video" ? "video" : "audio", { controls: true, preload: "metadata", src: source(piece), title: label });
    return el("figure", {}, player, el("figcaption", { text: label }));
  });
  const more = listed.length > MEDIA_SHOWN ? el("p", { class: "hint", text: `and ${listed.length - MEDIA_SHOWN} more` }) : null;
  return [el("h3", { text: "Media" }), el("div", { class: "media" }, shown), more];
}

function timeline(entry) {
  const events = entry.response.map(parseEvent);
  const offsets = entry.event_offsets_ms || [];
  const total = Math.max(entry.duration_ms || 0, ...offsets, 1);
  const gaps = offsets.map((at, i) => (i ? at - offsets[i - 1] : at));
  const sorted = [...gaps.slice(1)].sort((a, b) => a - b);
  const median = sorted.length ? sorted[Math.floor(sorted.length / 2)] : 0;
  const stalled = (i) => i > 0 && gaps[i] > Math.max(50, median * 4);
  const cut = entry.client_gone || ["disconnect", "error"].includes(entry.fault) || (entry.events_sent !== null && events.length && events[events.length - 1].name !== "[DONE]"
    && !["message_stop", "response.completed", "response.failed", "response.incomplete"].includes(events[events.length - 1].name));
  const bar = el("div", { class: "timeline", title: `${events.length} events over ${ms(total)} ms` },
    offsets.map((at, i) => el("div", { class: "tick" + (stalled(i) ? " stall" : "") + (events[i]?.name === "error" ? " fault" : ""),
      style: { left: `${(at / total) * 99}%` }, title: `${events[i]?.name} at ${ms(at)} ms` })),
    cut ? el("div", { class: "end", style: { left: "99.5%" }, title: "the stream ended early" }) : null,
    el("span", { class: "axis", style: { left: "4px" }, text: "0 ms" }),
    el("span", { class: "axis", style: { right: "4px" }, text: `${ms(total)} ms` }));
  const table = el("table", { class: "events" },
    el("thead", {}, el("tr", {}, el("th", { text: "#" }), el("th", { text: "offset ms" }), el("th", { text: "gap ms" }),
      el("th", { text: "event" }), el("th", { text: "data" }))),
    el("tbody", {}, events.map((event, i) => el("tr", { class: stalled(i) ? "stall" : null },
      el("td", { text: i }), el("td", { class: "num", text: ms(offsets[i]) }), el("td", { class: "num", text: ms(gaps[i]) }),
      el("td", { text: event.name }), el("td", { class: "data", text: event.raw.length > 300 ? event.raw.slice(0, 300) + "…" : event.raw })))));
  const summary = el("p", {}, `${events.length} event(s) sent`,
    entry.fault ? el("span", { class: "bad", text: ` · fault: ${entry.fault}` }) : null,
    entry.client_gone ? el("span", { class: "bad", text: " · the client left" }) : null,
    cut && !entry.fault && !entry.client_gone ? el("span", { class: "bad", text: " · cut off (no closing event)" }) : null);
  return el("div", { class: "sse" }, el("h3", { text: "SSE timeline" }), summary, bar, table);
}

// ---- the conversation ------------------------------------------------------------------------------------

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p.text || p.input_text || p.output_text || "")).join("");
  return "";
}

// A message as bubbles' parts: {kind: text|reasoning|call|result, text, title, signature, where}
function partsOf(message, where) {
  const parts = [];
  const content = message.content;
  if (typeof content === "string") parts.push({ kind: "text", text: content });
  else if (Array.isArray(content)) {
    content.forEach((block, j) => {
      if (typeof block === "string") { parts.push({ kind: "text", text: block }); return; }
      const type = block.type || "";
      if (type === "thinking" || type === "redacted_thinking" || type === "reasoning") {
        parts.push({ kind: "reasoning", text: block.thinking || block.text || (block.data ? "[redacted]" : ""),
          signature: block.signature || block.data || null, where: `${where}.content.${j}` });
      } else if (type === "tool_use" || type === "server_tool_use") {
        parts.push({ kind: "call", title: `${block.name} (${block.id})`, text: pretty(block.input) });
      } else if (type === "tool_result") {
        parts.push({ kind: "result", title: `result of ${block.tool_use_id}`, text: textOf(block.content) || pretty(block.content) });
      } else if (block.text !== undefined) parts.push({ kind: "text", text: block.text });
      else parts.push({ kind: "text", text: pretty(block) });
    });
  }
  const reasoning = message.reasoning_content || message.reasoning;
  if (typeof reasoning === "string" && reasoning) parts.unshift({ kind: "reasoning", text: reasoning,
    signature: (message.reasoning_details || []).map((d) => d.signature).find(Boolean) || null, where });
  for (const call of message.tool_calls || []) {
    const fn = call.function || {};
    parts.push({ kind: "call", title: `${fn.name || call.type} (${call.id})`, text: fn.arguments ?? call.custom?.input ?? "" });
  }
  if (message.refusal) parts.push({ kind: "text", text: `refusal: ${message.refusal}` });
  return parts;
}

function conversationOf(body) {
  const turns = [];
  if (!body || typeof body !== "object") return turns;
  if (body.system) turns.push({ role: "system", parts: [{ kind: "text", text: textOf(body.system) || pretty(body.system) }] });
  if (body.instructions) turns.push({ role: "system", parts: [{ kind: "text", text: body.instructions }] });
  (body.messages || []).forEach((m, i) => {
    if (m && typeof m === "object") turns.push({ role: m.role === "tool" ? "tool" : m.role, parts: m.role === "tool"
      ? [{ kind: "result", title: `result of ${m.tool_call_id}`, text: textOf(m.content) }] : partsOf(m, `messages.${i}`) });
  });
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  if (Array.isArray(input)) input.forEach((item, i) => turns.push(...itemTurns(item, `input.${i}`)));
  const instruction = body.systemInstruction || body.system_instruction;
  if (instruction) turns.unshift({ role: "system", parts: geminiParts(instruction.parts) });
  (Array.isArray(body.contents) ? body.contents : []).forEach((c) => { if (c && typeof c === "object") turns.push(geminiTurn(c)); });
  return turns;
}

// Gemini's contents (generateContent): a model content is the assistant's, a user content of function responses a tool's
function geminiTurn(content) {
  const parts = geminiParts(content.parts);
  const role = content.role === "model" ? "assistant" : parts.length && parts.every((p) => p.kind === "result") ? "tool" : "user";
  return { role, parts };
}

function geminiParts(parts) {
  return (Array.isArray(parts) ? parts : []).flatMap((p) => {
    if (!p || typeof p !== "object") return [];
    const call = p.functionCall || p.function_call, response = p.functionResponse || p.function_response;
    if (call) return [{ kind: "call", title: call.id ? `${call.name} (${call.id})` : call.name, text: pretty(call.args ?? {}) }];
    if (response) return [{ kind: "result", title: `result of ${response.name}`, text: pretty(response.response) }];
    if (typeof p.text === "string") return p.thought ? (p.text ? [{ kind: "reasoning", text: p.text }] : []) : [{ kind: "text", text: p.text }];
    const media = p.inlineData || p.inline_data || p.fileData || p.file_data;
    if (media) return [{ kind: "text", text: `[${media.mimeType || media.mime_type || "media"}${media.fileUri || media.file_uri ? " " + (media.fileUri || media.file_uri) : ""}]` }];
    if (p.thought) return [];
    return [{ kind: "text", text: pretty(p) }];
  });
}

function itemTurns(item, where) {
  if (!item || typeof item !== "object") return [];
  const type = item.type || "message";
  if (type === "message") return [{ role: item.role, parts: partsOf(item, where) }];
  if (type === "function_call" || type === "custom_tool_call") {
    return [{ role: "assistant", parts: [{ kind: "call", title: `${item.name} (${item.call_id})`, text: item.arguments ?? item.input ?? "" }] }];
  }
  if (type === "function_call_output" || type === "custom_tool_call_output") {
    return [{ role: "tool", parts: [{ kind: "result", title: `result of ${item.call_id}`, text: textOf(item.output) || pretty(item.output) }] }];
  }
  if (type === "reasoning") {
    return [{ role: "assistant", parts: [{ kind: "reasoning", text: (item.summary || []).map((s) => s.text).join("\n") || "[encrypted]",
      signature: item.encrypted_content || null, where }] }];
  }
  return [{ role: "assistant", parts: [{ kind: "text", text: pretty(item) }] }];
}

// What the emulator answered, as one assistant turn: a JSON body, or a stream's events put together.
function replyOf(entry) {
  const response = entry.response;
  if (response && !Array.isArray(response) && typeof response === "object") return replyFromBody(response);
  if (!Array.isArray(response)) return null;
  const events = response.map(parseEvent).filter((e) => e.json);
  const completed = events.find((e) => e.json.type === "response.completed" || e.json.type === "response.incomplete");
  if (completed) return replyFromBody(completed.json.response);
  if (events.some((e) => Array.isArray(e.json.candidates))) return geminiReply(events.map((e) => e.json));
  const message = { role: "assistant", content: "", reasoning: "", tool_calls: [] };
  const blocks = [];
  for (const { json } of events) {
    const delta = json.choices?.[0]?.delta;
    if (delta) {
      message.content += delta.content || "";
      message.reasoning += delta.reasoning || delta.reasoning_content || "";
      for (const call of delta.tool_calls || []) {
        const at = call.index ?? 0;
        message.tool_calls[at] ||= { id: call.id, type: "function", function: { name: "", arguments: "" } };
        if (call.id) message.tool_calls[at].id = call.id;
        if (call.function?.name) message.tool_calls[at].function.name += call.function.name;
        message.tool_calls[at].function.arguments += call.function?.arguments || "";
      }
    }
    if (json.type === "content_block_start") blocks[json.index] = { ...json.content_block };
    if (json.type === "content_block_delta") {
      const block = blocks[json.index] ||= { type: "text", text: "" };
      const d = json.delta;
      if (d.type === "text_delta") block.text = (block.text || "") + d.text;
      if (d.type === "thinking_delta") block.thinking = (block.thinking || "") + d.thinking;
      if (d.type === "signature_delta") block.signature = (block.signature || "") + d.signature;
      if (d.type === "input_json_delta") block.partial = (block.partial || "") + d.partial_json;
    }
  }
  if (blocks.length) {
    for (const block of blocks) if (block && block.partial !== undefined) { try { block.input = JSON.parse(block.partial); } catch { block.input = block.partial; } }
    return { role: "assistant", parts: partsOf({ content: blocks.filter(Boolean) }, "reply") };
  }
  message.tool_calls = message.tool_calls.filter(Boolean);
  return { role: "assistant", parts: partsOf(message, "reply") };
}

function replyFromBody(body) {
  if (!body || typeof body !== "object") return null;
  if (body.error) return { role: "error", parts: [{ kind: "text", text: body.error.message || pretty(body.error) }] };
  if (body.choices) return { role: "assistant", parts: partsOf(body.choices[0]?.message || {}, "reply") };
  if (Array.isArray(body.content)) return { role: "assistant", parts: partsOf(body, "reply") };
  if (Array.isArray(body.candidates)) return geminiReply([body]);
  if (Array.isArray(body.output)) return { role: "assistant", parts: body.output.flatMap((item, i) => itemTurns(item, `output.${i}`)).flatMap((t) => t.parts) };
  return { role: "assistant", parts: [{ kind: "text", text: pretty(body) }] };
}

// Gemini's answer: the candidate's parts of every response (a stream's text pieces joined, kind by kind)
function geminiReply(responses) {
  const parts = [];
  for (const response of responses) {
    for (const part of geminiParts(response.candidates?.[0]?.content?.parts)) {
      const last = parts[parts.length - 1];
      if (last && (part.kind === "text" || part.kind === "reasoning") && last.kind === part.kind) last.text += part.text;
      else parts.push({ ...part });
    }
  }
  return { role: "assistant", parts };
}

function signatureCheck(part, warnings) {
  if (!part.signature) return el("span", { class: "hint", text: " · no signature" });
  const found = warnings.find((w) => w.startsWith("reasoning check: ") && part.where && w.includes(part.where + "."))
    || warnings.find((w) => w.startsWith("reasoning check: ") && part.where && w.includes(part.where + ":"));
  return found ? el("span", { class: "bad sig", text: ` · signature ✗ ${found.replace("reasoning check: ", "")}` })
    : el("span", { class: "ok sig", text: part.where && part.where.startsWith("reply") ? " · signed by the emulator" : " · signature ✓ passed the reasoning check" });
}

function bubble(turn, warnings, reply = false) {
  return el("div", { class: `bubble ${turn.role}${reply ? " reply" : ""}` },
    el("div", { class: "role", text: reply ? `${turn.role} (the emulator's answer)` : turn.role }),
    turn.parts.map((part) => el("div", { class: `part ${part.kind}` },
      part.kind === "reasoning" ? el("div", { class: "hint" }, "reasoning", signatureCheck(part, warnings)) : null,
      part.title ? el("div", { class: "hint", text: part.kind === "call" ? `tool call ${part.title}` : part.title }) : null,
      part.text)));
}

function conversationView(entry) {
  // what the reasoning check found: warnings (--reasoning-check warn), or the 400 that refused the request (strict)
  const refused = entry.response && !Array.isArray(entry.response) && entry.response.error ? entry.response.error.message : null;
  const warnings = [...(entry.warnings || []), ...(refused ? [`reasoning check: ${refused}`] : [])];
  const turns = conversationOf(entry.body);
  const reply = replyOf(entry);
  if (!turns.length && !reply) return [el("p", { class: "hint", text: "No messages in this request." })];
  return [el("div", { class: "bubbles" }, turns.map((t) => bubble(t, warnings)), reply ? bubble(reply, warnings, true) : null)];
}

// ---- why it did not match ------------------------------------------------------------------------------------

async function rulesByName() {
  if (!state.rules) state.rules = await call("/scenarios");
  return new Map(state.rules.rules.map((rule) => [rule.name, rule]));
}

async function nearView(nearMisses) {
  const known = await rulesByName();
  if (!nearMisses.length) return [el("p", { class: "hint", text: "No rule is loaded that could have answered." })];
  return nearMisses.map((near) => {
    const rule = known.get(near.rule);
    const missed = new Map(near.misses.map((m) => [m.key, m]));
    const fields = [...new Set([...Object.keys(rule?.match || {}), ...missed.keys()])];
    return el("div", { class: "near" },
      el("h4", {}, near.rule, " ", el("span", { class: "where", text: near.where })),
      el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "field" }), el("th", { text: "expected" }),
        el("th", { text: "got" }), el("th", { text: "pass" }))),
      el("tbody", {}, fields.map((key) => {
        const miss = missed.get(key);
        return el("tr", { class: miss ? "miss" : "held" }, el("td", { text: key }),
          el("td", { text: miss ? miss.expected : rule.match[key] }), el("td", { text: miss ? miss.actual : "as expected" }),
          el("td", { class: miss ? "bad" : "ok", text: miss ? "✗" : "✓" }));
      }))));
  });
}

async function whyView(entry) {
  const nodes = [el("p", {}, "No rule answered this request. The three nearest rules, field by field:")];
  nodes.push(...(await nearView(entry.near_misses || [])));
  nodes.push(el("button", { onclick: () => toMatchBox(entry) }, "Edit and check it in “Would this match?”"));
  return nodes;
}

function checksView(entry) {
  const list = (items, empty) => (items && items.length ? el("ul", {}, items.map((w) => el("li", { text: w }))) : el("p", { class: "hint", text: empty }));
  return [
    el("h3", { text: "Warnings" }), list(entry.warnings, "none"),
    el("h3", { text: "Unmet expectations" }), list(entry.unmet_expectations, entry.rule ? "none (or the rule expects nothing)" : "no rule answered"),
    el("h3", { text: "Routing attempts" }),
    entry.routing && entry.routing.length ? el("table", {}, el("thead", {}, el("tr", {}, ["model", "provider", "outcome", "latency ms"].map((h) => el("th", { text: h })))),
      el("tbody", {}, entry.routing.map((a) => el("tr", {}, el("td", { text: a.model }), el("td", { text: a.provider }),
        el("td", { class: a.outcome === "ok" ? "ok" : "bad", text: a.outcome }), el("td", { class: "num", text: a.latency_ms })))))
      : el("p", { class: "hint", text: "none" }),
    el("h3", { text: "Outcome" }),
    kv([["status", entry.status], ["error type", entry.error_type], ["fault", entry.fault],
      ["misbehaved", entry.misbehaved ? [entry.misbehaved.fault, entry.misbehaved.variant].filter(Boolean).join(";") + ` (asked by ${entry.misbehaved.source})` : null],
      ["dropped", String(entry.dropped)],
      ["client gone", String(entry.client_gone)], ["events sent", entry.events_sent], ["time to first byte ms", entry.first_byte_ms],
      ["total ms", entry.duration_ms], ["recorded", String(entry.recorded)]]),
  ];
}

// ---- actions ---------------------------------------------------------------------------------------------------

function shellQuote(text) { return "'" + String(text).replaceAll("'", "'\\''") + "'"; }

function curlOf(entry) {
  const lines = [`curl ${shellQuote(location.origin + entry.path)}`, `  -X ${entry.method}`];
  for (const [name, value] of Object.entries(entry.headers || {})) {
    if (["host", "content-length", "connection", "accept-encoding"].includes(name.toLowerCase())) continue;
    const masked = /authorization|api-key|x-emulator-admin-token/i.test(name);
    lines.push(`  -H ${shellQuote(`${name}: ${masked ? (name.toLowerCase() === "authorization" ? "Bearer $ZENMUX_API_KEY" : "$ZENMUX_API_KEY") : value}`)}`);
  }
  if (entry.body !== null && entry.body !== undefined) lines.push(`  --data-raw ${shellQuote(JSON.stringify(entry.body))}`);
  return lines.join(" \\\n");
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    notice(`${what} copied`);
  } catch {
    notice(`${what} (select and copy):`);
  }
  $("#tab-body").replaceChildren(el("pre", { id: "copied", text }));
}

// A JSON string is a YAML double-quoted scalar, but for characters JSON leaves raw that YAML refuses
// (DEL, the C1 controls, U+FFFE, U+FFFF) or reads as line breaks (U+0085, U+2028, U+2029), and the
// byte-order mark: those are written as YAML's \u escapes, which read back as the same characters.
const YAML_RAW = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;
function yamlString(text) {
  return JSON.stringify(String(text)).replace(YAML_RAW, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

function lastUser(turns) {
  for (let i = turns.length - 1; i >= 0; i--) {
    if (turns[i].role === "user") {
      const text = turns[i].parts.filter((p) => p.kind === "text").map((p) => p.text).join("");
      if (text) return text;
    }
  }
  return null;
}

// A rule that matches this request (its face, model and last user message) and answers what it got;
// null for a face rules cannot answer (the Platform API answers from the emulator's own state).
function ruleOf(entry) {
  if (state.faces.some((f) => f.name === entry.api && !f.rules)) return null;
  const turns = conversationOf(entry.body);
  const user = lastUser(turns);
  const model = rows.get(entry.seq)?.model;
  const lines = ["rules:", `  - name: ${yamlString(`from-request-${entry.seq}`)}`, "    match:"];
  if (entry.api) lines.push(`      api: ${yamlString(entry.api)}`);
  if (model) lines.push(`      model: ${yamlString(model)}`);
  if (user !== null) lines.push(`      last_user: {equals: ${yamlString(user)}}`);
  lines.push("    reply:");
  const envelope = entry.response && !Array.isArray(entry.response) && entry.response.error;
  if (entry.status >= 400 && envelope) {
    lines.push(`      error: {status: ${entry.status}, type: ${yamlString(envelope.type || "error")}, message: ${yamlString(envelope.message || "")}}`);
    return lines.join("\n") + "\n";
  }
  const reply = replyOf(entry);
  const parts = reply ? reply.parts : [];
  const text = parts.filter((p) => p.kind === "text").map((p) => p.text).join("");
  const reasoning = parts.filter((p) => p.kind === "reasoning" && p.text && !p.text.startsWith("[")).map((p) => p.text).join("");
  const calls = parts.filter((p) => p.kind === "call");
  if (text || !calls.length) lines.push(`      content: ${yamlString(text)}`);
  if (reasoning) lines.push(`      reasoning: ${yamlString(reasoning)}`);
  if (calls.length) {
    lines.push("      tool_calls:");
    for (const call of calls) {
      const name = call.title.replace(/ \(.*\)$/, "");
      lines.push(`        - name: ${yamlString(name)}`, `          arguments: ${yamlString(typeof call.text === "string" ? call.text : JSON.stringify(call.text))}`);
    }
  }
  return lines.join("\n") + "\n";
}

async function resetSession() {
  const entry = state.entry;
  if (!entry || !entry.session) return;
  try {
    const done = await call("/sessions/reset", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ session: entry.session }) });
    state.rules = null;
    notice(`session ${done.session} reset: its sequences start again`);
  } catch (error) {
    notice(error.message, true);
  }
}

function save(name, type, text) {
  const link = el("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(link);
  link.click();
  link.remove();
}

async function journal() { return (await call("/journal")).entries; }

function harOf(entries) {
  const pairs = (object) => Object.entries(object || {}).map(([name, value]) => ({ name, value: String(value) }));
  return {
    log: {
      version: "1.2", creator: { name: "zenmux-emulator inspector", version: "1" },
      entries: entries.map((e) => {
        const text = Array.isArray(e.response) ? e.response.join("") : e.response === null ? "" : typeof e.response === "string" ? e.response : JSON.stringify(e.response);
        const body = e.body === null || e.body === undefined ? null : JSON.stringify(e.body);
        const type = (e.response_headers || {})["Content-Type"] || (e.stream ? "text/event-stream" : "application/json");
        return {
          startedDateTime: new Date(e.arrived * 1000).toISOString(), time: e.duration_ms || 0,
          request: { method: e.method, url: location.origin + e.path, httpVersion: "HTTP/1.1", cookies: [],
            headers: pairs(e.headers), queryString: [], headersSize: -1, bodySize: body ? body.length : 0,
            ...(body ? { postData: { mimeType: "application/json", text: body } } : {}) },
          response: { status: e.status || 0, statusText: "", httpVersion: "HTTP/1.1", cookies: [],
            headers: pairs(e.response_headers), content: { size: text.length, mimeType: type, text },
            redirectURL: "", headersSize: -1, bodySize: text.length },
          cache: {}, timings: { send: 0, wait: e.first_byte_ms || 0, receive: Math.max((e.duration_ms || 0) - (e.first_byte_ms || 0), 0) },
          _seq: e.seq, _rule: e.rule, _session: e.session, _face: e.api,
        };
      }),
    },
  };
}

// ---- the rules --------------------------------------------------------------------------------------------------

async function showRules() {
  const box = $("#rules");
  try {
    state.rules = await call("/scenarios");
    const sessions = [...new Set([...rows.values()].map((r) => r.session).filter(Boolean))].slice(-SESSIONS_SHOWN);
    const perSession = new Map();
    for (const name of sessions) {
      try {
        const listed = await call(`/scenarios?session=${encodeURIComponent(name)}`);
        perSession.set(name, new Map(listed.rules.map((r) => [r.name, r.hits.session])));
      } catch { /* a session reset away or forgotten */ }
    }
    const bySource = new Map();
    for (const rule of state.rules.rules) {
      if (!bySource.has(rule.source)) bySource.set(rule.source, []);
      bySource.get(rule.source).push(rule);
    }
    const unused = state.rules.rules.filter((r) => !r.hits.total);
    box.replaceChildren(
      el("p", {}, `${state.rules.rules.length} rules from ${bySource.size} source(s); `,
        el("strong", { id: "unused-count", text: `${unused.length} never used` })),
      ...[...bySource.entries()].map(([source, rules]) => el("div", { class: "file" },
        el("h3", { text: `${source} (${rules.length} rules)` }),
        el("table", {}, el("thead", {}, el("tr", {}, ["rule", "where", "replies", "then", "answered", "position per session"].map((h) => el("th", { text: h })))),
          el("tbody", {}, rules.map((rule) => el("tr", { class: rule.hits.total ? null : "unused", "data-rule": rule.name },
            el("td", { text: rule.name }), el("td", { class: "hint", text: rule.where }), el("td", { class: "num", text: rule.replies }),
            el("td", { text: rule.then }), el("td", { class: "num", text: rule.hits.total || "never" }),
            el("td", { text: [...perSession.entries()].filter(([, hits]) => hits.get(rule.name))
              .map(([name, hits]) => `${name}: ${Math.min(hits.get(rule.name), rule.replies)}/${rule.replies}`).join(", ") }))))))));
    box.append(...(await scenariosView()));
  } catch (error) {
    box.replaceChildren(el("p", { class: "bad", text: error.message }));
  }
}

// ---- the scenarios' states --------------------------------------------------------------------------------------

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== null && value !== undefined) node.setAttribute(key, value);
  for (const child of children.flat()) if (child) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

async function scenariosView() {
  const listed = await call("/states");
  const names = Object.keys(listed.scenarios);
  if (!names.length) return [];
  const seen = [...new Set([...rows.values()].map((r) => r.session).filter(Boolean))].slice(-SESSIONS_SHOWN);
  return [el("h3", { text: `Scenario states (${names.length})` }),
    el("p", { class: "hint", text: "Each scenario's states and the rules that move it; where each session stands (one never moved stands at started). Red: a when_state no move reaches; amber: a state no rule leaves." }),
    ...names.map((name) => machineView(name, listed.scenarios[name], seen))];
}

function machineView(name, scenario, seen) {
  const machine = scenario.machine;
  const at = new Map(machine.states.map((s) => [s, []]));
  for (const [session, standing] of Object.entries(scenario.sessions)) {
    if (!at.has(standing.state)) at.set(standing.state, []);
    const pending = standing.pending ? ` → ${standing.pending.to} in ${Math.max(0, Math.round(standing.pending.due_in_s))} s` : "";
    at.get(standing.state).push(session + pending);
  }
  if (!scenario.server_wide) for (const session of seen) if (!(session in scenario.sessions)) at.get("started").push(session);
  const states = [...at.keys()];
  const mark = (state) => (machine.unreachable.includes(state) ? "unreachable" : machine.dead_ends.includes(state) ? "dead-end" : "");
  const W = 150, H = 44, GAP = 90, TOP = 80;
  const x = (state) => 10 + states.indexOf(state) * (W + GAP);
  const moves = machine.moves.filter((m) => m.from !== null && m.from !== m.to);
  const drawing = svg("svg", { class: "machine", width: states.length * (W + GAP), height: TOP * 2 + H, "data-scenario": name },
    svg("defs", {}, svg("marker", { id: `arrow-${name}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" },
      svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#2f5bd3" }))),
    moves.map((move, i) => {
      const from = x(move.from) + W / 2, to = x(move.to) + W / 2, ahead = to > from;
      const y = ahead ? TOP : TOP + H, bend = ahead ? TOP - 40 - (i % 3) * 8 : TOP + H + 40 + (i % 3) * 8;
      const label = move.after_s ? `${move.rule} (after ${move.after_s} s)` : move.rule;
      return svg("g", { class: "move", "data-from": move.from, "data-to": move.to },
        svg("path", { d: `M${from},${y} C${from},${bend} ${to},${bend} ${to},${y}`, fill: "none", stroke: move.after_s ? "#9a6700" : "#2f5bd3",
          "stroke-dasharray": move.after_s ? "5 3" : null, "marker-end": `url(#arrow-${name})` }),
        svg("text", { x: (from + to) / 2, y: ahead ? bend + 4 : bend - 2, "text-anchor": "middle", "font-size": 11 }, label));
    }),
    states.map((state) => svg("g", { class: `state ${mark(state)}`.trim(), "data-state": state },
      svg("rect", { x: x(state), y: TOP, width: W, height: H, rx: 8, fill: mark(state) === "unreachable" ? "#fde7e4" : mark(state) ? "#fff5da" : "#fff",
        stroke: mark(state) === "unreachable" ? "#b3261e" : mark(state) ? "#9a6700" : "#6b7385" }),
      svg("text", { x: x(state) + W / 2, y: TOP + 18, "text-anchor": "middle", "font-weight": 600 }, state),
      svg("text", { x: x(state) + W / 2, y: TOP + 34, "text-anchor": "middle", "font-size": 11, fill: "#6b7385" },
        `${at.get(state).length} session(s)`))));
  const anywhere = machine.moves.filter((m) => m.from === null).map((m) => `${m.rule}: any state → ${m.to}`);
  return el("div", { class: "scenario", "data-scenario": name },
    el("h4", { text: `${name}${scenario.server_wide ? " (server-wide)" : ""}` }),
    el("div", { class: "drawing" }, drawing),
    anywhere.length ? el("p", { class: "hint", text: anywhere.join("; ") }) : null,
    el("table", {}, el("thead", {}, el("tr", {}, ["state", "sessions there", "rules matching", "note"].map((h) => el("th", { text: h })))),
      el("tbody", {}, states.map((state) => el("tr", { "data-state": state, class: mark(state) || null },
        el("td", { text: state }), el("td", { class: "sessions", text: at.get(state).join(", ") }),
        el("td", { text: (machine.matching[state] || []).join(", ") }),
        el("td", { class: "note", text: mark(state) === "unreachable" ? "no rule moves here" : mark(state) ? "no rule leaves" : "" }))))));
}

// ---- would this match? -----------------------------------------------------------------------------------------

function toMatchBox(entry) {
  $("#m-path").value = entry.path;
  $("#m-session").value = entry.session || "";
  $("#m-body").value = pretty(entry.body);
  switchView("match");
}

async function checkMatch(event) {
  event.preventDefault();
  const out = $("#m-result");
  let body, headers;
  try {
    body = JSON.parse($("#m-body").value);
    headers = $("#m-headers").value.trim() ? JSON.parse($("#m-headers").value) : undefined;
  } catch (error) {
    out.replaceChildren(el("p", { class: "bad", text: `Not JSON: ${error.message}` }));
    return;
  }
  try {
    const verdict = await call("/match", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ path: $("#m-path").value, body, headers, session: $("#m-session").value || undefined }) });
    if (!verdict.accepted) {
      out.replaceChildren(el("p", { class: "bad", id: "m-verdict", text: `The ${verdict.face} face rejects it: ${verdict.rejected.status} ${verdict.rejected.type}: ${verdict.rejected.message}` }));
    } else if (verdict.rule) {
      out.replaceChildren(el("p", { class: "ok", id: "m-verdict", text: `Matches ${verdict.rule} (${verdict.where}), reply #${verdict.reply_index} for session ${verdict.session}.` }));
    } else {
      state.rules = null;
      out.replaceChildren(el("p", { class: "bad", id: "m-verdict", text: "No rule matches. The nearest:" }), ...(await nearView(verdict.near_misses)));
    }
  } catch (error) {
    out.replaceChildren(el("p", { class: "bad", id: "m-verdict", text: error.message }));
  }
}

// ---- wiring ------------------------------------------------------------------------------------------------------

function switchView(name) {
  for (const button of document.querySelectorAll("#views button")) button.classList.toggle("on", button.dataset.view === name);
  for (const view of document.querySelectorAll(".view")) view.classList.toggle("on", view.id === `view-${name}`);
  if (name === "rules") showRules();
}

async function loadFaces() {
  try {
    state.faces = await call("/ui/faces");
    options($("#f-face"), state.faces.map((f) => f.name));
    $("#face-paths").replaceChildren(...state.faces.flatMap((f) => f.paths.map((p) => el("option", { value: p, label: f.name }))));
  } catch { /* the list still works */ }
}

function start() {
  if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);
  for (const button of document.querySelectorAll("#views button")) button.addEventListener("click", () => switchView(button.dataset.view));
  for (const button of document.querySelectorAll("#tabs button")) button.addEventListener("click", () => showTab(button.dataset.tab));
  for (const input of document.querySelectorAll("#filters select, #filters input")) input.addEventListener("input", render);
  $("#filters").addEventListener("submit", (event) => event.preventDefault());
  $("#pause").addEventListener("click", togglePause);
  $("#close-detail").addEventListener("click", () => { $("#detail").hidden = true; state.selected = null; render(); });
  $("#copy-curl").addEventListener("click", () => state.entry && copy(curlOf(state.entry), "curl command"));
  $("#make-rule").addEventListener("click", () => {
    if (!state.entry) return;
    const made = ruleOf(state.entry);
    if (made === null) notice(`no rule made: rules do not answer the ${state.entry.api} face (it answers from the emulator's own state)`);
    else copy(made, "rule YAML");
  });
  $("#reset-session").addEventListener("click", resetSession);
  $("#refresh-rules").addEventListener("click", showRules);
  $("#match-form").addEventListener("submit", checkMatch);
  $("#download-json").addEventListener("click", async () => save("journal.json", "application/json", JSON.stringify(await journal(), null, 2)));
  $("#download-har").addEventListener("click", async () => save("journal.har", "application/json", JSON.stringify(harOf(await journal()), null, 2)));
  loadFaces();
  render();
  connect();
}

start();
