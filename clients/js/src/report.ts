/** Text for people, as the pytest plugin writes it: unmatched requests first, then unmet expectations, then
 * replies made wrong on purpose. */

export interface NearMiss {
  rule: string;
  where: string;
  misses?: { key: string; expected: unknown; actual: unknown }[];
}

export interface JournalEntry {
  seq: number;
  method: string;
  path: string;
  api?: string;
  session: string;
  status: number | null;
  error_type: string | null;
  rule: string | null;
  body: any;
  headers: Record<string, string>;
  near_misses: NearMiss[];
  unmet_expectations: string[];
  warnings: string[];
  misbehaved?: { fault: string; variant?: string | null } | null;
  response?: unknown;
  [field: string]: unknown;
}

export type Locate = (where: string) => string;

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === "object" && typeof part.text === "string" ? part.text : "")).filter(Boolean).join(" ");
  }
  return "";
}

/** The last user message of a chat or Messages body, on one line and cut to `width`. */
export function lastUser(body: any, width = 80): string {
  const messages = body && typeof body === "object" ? body.messages : undefined;
  if (!Array.isArray(messages)) return "";
  for (const message of [...messages].reverse()) {
    if (message && message.role === "user") {
      const said = text(message.content).split(/\s+/).filter(Boolean).join(" ");
      return said.length <= width ? said : said.slice(0, width - 1) + "…";
    }
  }
  return "";
}

/** A face's request that passed its checks but no rule answered (the default reply, or a strict 404
 * `emulator_no_match`): the journal's own `unmatched`. */
export function isUnmatched(entry: JournalEntry): boolean {
  return Boolean(entry.api) && !entry.rule && (entry.error_type === null || entry.error_type === "emulator_no_match");
}

export function misbehavedLabel(entry: JournalEntry): string {
  const applied = entry.misbehaved ?? undefined;
  return applied?.variant ? `${applied.fault};${applied.variant}` : String(applied?.fault);
}

function nearMissLines(nearMisses: NearMiss[], locate: Locate): string[] {
  return nearMisses.map((near) => {
    const missed = (near.misses ?? []).map((m) => `${m.key} wanted ${m.expected}, got ${m.actual}`).join("; ");
    return `    near miss: ${near.rule} (${locate(String(near.where ?? ""))}): ${missed}`;
  });
}

/** The account a failing test's message starts with; empty when the emulator has nothing to say. */
export function whyFirst(entries: JournalEntry[], locate: Locate, session: string): string {
  const lines: string[] = [];
  const unmatched = entries.filter(isUnmatched);
  if (unmatched.length) lines.push(`zenmux: ${unmatched.length} request(s) no rule matched:`);
  for (const entry of unmatched) {
    const answered = entry.error_type ? `${entry.status} ${entry.error_type}` : `${entry.status} (a placeholder reply)`;
    const user = lastUser(entry.body);
    lines.push(`  #${entry.seq} ${entry.method} ${entry.path} answered ${answered}` + (user ? `, last user: ${JSON.stringify(user)}` : ""));
    const near = nearMissLines(entry.near_misses ?? [], locate);
    lines.push(...(near.length ? near : ["    no rule could answer this face"]));
  }
  const unmet = entries.flatMap((entry) => entry.unmet_expectations ?? []);
  if (unmet.length) lines.push(`zenmux: ${unmet.length} expectation(s) not met:`, ...unmet.map((u) => `  ${u}`));
  const faulty = entries.filter((entry) => entry.misbehaved);
  if (faulty.length) {
    lines.push(`zenmux: ${faulty.length} reply(ies) misbehaved on purpose (docs: Models that misbehave):`);
    lines.push(...faulty.map((entry) => `  #${entry.seq} ${entry.method} ${entry.path}: ${misbehavedLabel(entry)}`));
  }
  if (lines.length) lines.push(`(session ${session}: ${entries.length} request(s) in all; session.requests() lists them)`);
  return lines.join("\n");
}

export function unusedRulesMessage(unused: { name: string; where: string }[]): string {
  return [`${unused.length} zenmux rule(s) loaded by this test never matched:`, ...unused.map((r) => `  ${r.name} (${r.where})`)].join("\n");
}
