/** `Session`: one API key on the emulator, as the pytest plugin's `zenmux` handle: its own rules, journal, clock
 * changes and misbehaviour, all undone by `dispose()`. */

import { createHash } from "node:crypto";

import { blake2bHex } from "./blake2b.js";
import { ControlError } from "./control.js";
import type { Emulator } from "./emulator.js";
import { unusedRulesMessage, whyFirst, type JournalEntry, type Locate } from "./report.js";

export interface Rule {
  name: string;
  match?: Record<string, unknown>;
  reply?: Record<string, unknown>;
  replies?: Record<string, unknown>[];
  then?: string;
  priority?: number;
  expect?: Record<string, unknown>;
}

/** One thing the client did wrong, with the journal entry (`seq`) where it shows. */
export interface Finding {
  check: string;
  seq: number;
  message: string;
}

interface ScenarioStates {
  server_wide: boolean;
  sessions: Record<string, { state: string; pending: unknown }>;
}

interface Loaded {
  name: string;
  rules: string[];
  origin: string;
}

interface ListedRule {
  name: string;
  source: string;
  where: string;
  line?: number | null;
  hits: { total: number; session?: number };
}

interface Clock {
  now: number;
  frozen: boolean;
}

const API_PREFIX = "api:";

/** The API key of a test: stable for its name, distinct between names (the pytest plugin's form). */
export function keyFor(name: string): string {
  return "sk-zenmux-test-" + createHash("sha256").update(name, "utf8").digest("hex").slice(0, 16);
}

/** The emulator's session of a key without `X-Emulator-Session`: `key-` and a 6-byte BLAKE2b digest. */
export function sessionOfKey(apiKey: string): string {
  return "key-" + blake2bHex(Buffer.from(`session\x1f${apiKey}\x1f`, "utf8"), 6);
}

function scenarioStem(name: string): string {
  const cut = name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-._]+|[-._]+$/g, "").slice(0, 40) || "test";
  return `${cut}-${createHash("sha256").update(name, "utf8").digest("hex").slice(0, 8)}`;
}

/** Where the caller of a Session method is, from the stack: `file:line`, for reports. */
function caller(): string {
  const lines = (new Error().stack ?? "").split("\n").slice(3);
  const frame = lines.find((line) => !line.includes("/zenmux-emulator/dist/")) ?? lines[0] ?? "";
  const match = /\(?((?:file:\/\/)?[^()\s]+:\d+):\d+\)?\s*$/.exec(frame);
  return match ? match[1].replace(/^file:\/\//, "") : "?";
}

export class Session {
  readonly apiKey: string;
  /** The emulator's name for this session (journal entries, hits and reply positions are kept under it). */
  readonly session: string;
  /** Every scenario this session loaded, in order (kept after `dispose()`, so a report can still name them). */
  readonly loaded: Loaded[] = [];
  private live = 0;
  private readonly stem: string;
  private clockBefore?: Clock;
  private misbehaving = false;

  constructor(
    readonly emulator: Emulator,
    readonly name: string,
  ) {
    this.apiKey = keyFor(name);
    this.session = sessionOfKey(this.apiKey);
    this.stem = scenarioStem(name);
  }

  private get control() {
    return this.emulator.control;
  }

  /** A face's base URL (the same for every session: the key tells sessions apart). */
  baseUrl(face = "chat"): string {
    return this.emulator.baseUrl(face);
  }

  // scenarios

  /** Load YAML scenario text for this session; removed by `dispose()`. The names of its rules. */
  async load(yamlText: string): Promise<string[]> {
    return this.put({ yaml: yamlText }, `load at ${caller()}`);
  }

  /** Load a one-rule scenario; the rule's name. */
  async addRule(rule: Rule): Promise<string> {
    if ((rule.reply === undefined) === (rule.replies === undefined)) {
      throw new TypeError("zenmux: addRule needs exactly one of reply or replies");
    }
    const written = Object.fromEntries(Object.entries({ match: {}, ...rule }).filter(([, v]) => v !== undefined));
    await this.put({ json: { rules: [written] } }, `addRule at ${caller()}`);
    return rule.name;
  }

  private async put(body: { yaml?: string; json?: unknown }, origin: string): Promise<string[]> {
    const name = `${this.stem}-${this.loaded.length + 1}`;
    let answer: { rules: string[] };
    try {
      answer = await this.control.call("POST", "/scenarios", { ...body, query: { name } });
    } catch (error) {
      if (error instanceof ControlError) throw new Error(`zenmux: ${origin} was not loaded: ${error.message}`);
      throw error;
    }
    this.loaded.push({ name, rules: [...answer.rules], origin });
    this.live = this.loaded.length;
    return [...answer.rules];
  }

  // journal

  /** This session's journal entries, oldest first (`body`, `headers`, `status`, `rule`, `near_misses`, …). */
  async requests(): Promise<JournalEntry[]> {
    return this.journal({});
  }

  /** This session's requests no rule answered, each with its `near_misses`. */
  async unmatched(): Promise<JournalEntry[]> {
    return this.journal({ unmatched: true });
  }

  // scenario states

  /** Where this session stands in `scenario` (`started` until a rule's `set_state` or `setState` moves it; a
   * server-wide scenario's state is every session's), as the pytest handle's `state()`. */
  async state(scenario: string): Promise<string> {
    const listed = await this.states();
    const found = listed[scenario];
    if (found === undefined) {
      const names = Object.keys(listed).join(", ") || "none";
      throw new Error(`zenmux: no rule names scenario ${JSON.stringify(scenario)} (scenarios: ${names})`);
    }
    const standing = found.sessions[found.server_wide ? "*" : this.session];
    return standing === undefined ? "started" : standing.state;
  }

  /** Jump this session into `state` of `scenario` (`PUT /_emulator/states/{scenario}`), as `set_state()`. */
  async setState(scenario: string, state: string): Promise<void> {
    await this.control.call("PUT", `/states/${encodeURIComponent(scenario)}`, {
      json: { state, session: this.session },
    });
  }

  private async states(): Promise<Record<string, ScenarioStates>> {
    const answer = await this.control.call<{ scenarios: Record<string, ScenarioStates> }>("GET", "/states", {
      query: { session: this.session },
    });
    return answer.scenarios;
  }

  /** What this session's client did wrong, as the pytest handle's `verdict()`: signed reasoning not passed back
   * intact, tool calls never answered, a retry before `Retry-After` ran out, a non-retryable error sent again,
   * unmet expectations (`GET /_emulator/journal/verdict`). */
  async verdict(): Promise<Finding[]> {
    const answer = await this.control.call<{ findings: Finding[] }>("GET", "/journal/verdict", {
      query: { session: this.session },
    });
    return answer.findings;
  }

  private async journal(filter: Record<string, string | boolean>): Promise<JournalEntry[]> {
    const pages: JournalEntry[][] = [];
    let before: number | undefined;
    for (;;) {
      const page = await this.control.call<{ entries: JournalEntry[]; older: number | null }>("GET", "/journal", {
        query: { session: this.session, ...filter, before },
      });
      pages.unshift(page.entries);
      if (page.older === null || page.older === undefined) break;
      before = page.older;
    }
    return pages.flat();
  }

  /** Forget this session's journal entries and restart its reply sequences. */
  async clear(): Promise<void> {
    await this.control.call("DELETE", "/journal", { query: { session: this.session } });
    try {
      await this.control.call("POST", "/sessions/reset", { json: { session: this.session } });
    } catch (error) {
      if (!(error instanceof ControlError && error.type === "unknown_session")) throw error;
    }
  }

  // clock

  /** Move the emulator's clock on (a running clock freezes at now + seconds); the new time. Undone by `dispose()`. */
  async advanceClock(seconds: number): Promise<number> {
    await this.rememberClock();
    return (await this.control.call<Clock>("POST", "/clock", { json: { advance: seconds } })).now;
  }

  /** Freeze the clock at unix seconds or an ISO 8601 time; the new time. Undone by `dispose()`. */
  async freezeClock(at: number | string): Promise<number> {
    await this.rememberClock();
    return (await this.control.call<Clock>("POST", "/clock", { json: { freeze_at: at } })).now;
  }

  private async rememberClock(): Promise<void> {
    this.clockBefore ??= await this.control.call<Clock>("GET", "/clock");
  }

  // misbehaviour

  /** Give this session's requests a fault of the misbehaviour catalogue (`GET /_emulator/misbehave` lists them),
   * every request or a seeded share `rate`; `null` stops it. Undone by `dispose()`. */
  async misbehave(fault: string | null, options: { variant?: string; rate?: number } = {}): Promise<void> {
    const body = { session: this.session, fault, variant: options.variant ?? null, rate: options.rate ?? 1.0 };
    try {
      await this.control.call("POST", "/misbehave", { json: body });
    } catch (error) {
      if (error instanceof ControlError) throw new Error(`zenmux: misbehave(${fault}) was refused: ${error.message}`);
      throw error;
    }
    this.misbehaving = fault !== null;
  }

  // rules

  /** Every rule in force as `GET /_emulator/scenarios` lists it, with `hits.session` for this session. */
  async listedRules(): Promise<ListedRule[]> {
    try {
      return (await this.control.call("GET", "/scenarios", { query: { session: this.session } })).rules;
    } catch (error) {
      if (!(error instanceof ControlError && error.type === "unknown_session")) throw error;
    }
    const rules: ListedRule[] = (await this.control.call("GET", "/scenarios")).rules;
    return rules.map((rule) => ({ ...rule, hits: { ...rule.hits, session: 0 } }));
  }

  /** Throw, naming each rule and where it was loaded, if a rule this session loaded never answered it. */
  async assertAllRulesUsed(): Promise<void> {
    const bySource = new Map(this.loaded.map((s) => [API_PREFIX + s.name, s]));
    const unused = (await this.listedRules())
      .filter((rule) => bySource.has(rule.source) && !rule.hits.session)
      .map((rule) => ({ name: rule.name, where: this.where(bySource.get(rule.source)!, rule.line) }));
    if (unused.length) throw new Error(unusedRulesMessage(unused));
  }

  private where(scenario: Loaded, line?: number | null): string {
    return scenario.origin.startsWith("load at ") && line ? `${scenario.origin}, line ${line} of its YAML` : scenario.origin;
  }

  /** `api:<scenario>:<line>` of a scenario this session loaded, as the `load`/`addRule` call that loaded it. */
  readonly locate: Locate = (where) => {
    const match = /^api:(.+):(\d+)$/.exec(where);
    const scenario = match ? this.loaded.find((s) => s.name === match[1]) : undefined;
    return scenario ? this.where(scenario, Number(match![2])) : where;
  };

  // reports

  /** What a failing test's report says first: unmatched requests with their near misses, unmet expectations,
   * replies misbehaved on purpose. Empty when the emulator has nothing to say. */
  async account(): Promise<string> {
    return whyFirst(await this.requests(), this.locate, this.session);
  }

  /** Remove every scenario this session loaded, stop its misbehaviour and put the clock back. */
  async dispose(): Promise<void> {
    if (this.misbehaving) await this.misbehave(null);
    const before = this.clockBefore;
    this.clockBefore = undefined;
    if (before) await this.control.call("POST", "/clock", { json: before.frozen ? { freeze_at: before.now } : { unfreeze: true } });
    while (this.live > 0) {
      const scenario = this.loaded[--this.live];
      try {
        await this.control.call("DELETE", `/scenarios/${scenario.name}`);
      } catch (error) {
        if (!(error instanceof ControlError && error.type === "unknown_scenario")) throw error;
      }
    }
  }
}
