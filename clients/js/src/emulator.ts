/** `startEmulator`: a `zenmux-emulator serve` of its own on a free port, or one already running, as an `Emulator`. */

import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";

import { Control } from "./control.js";
import { Session } from "./session.js";

export interface StartOptions {
  /** Attach to an emulator already running (a CI service, a container) instead of starting one: its root or any
   * base URL. Default: `ZENMUX_EMULATOR_URL` when set. */
  url?: string;
  /** The command to start, e.g. `python -m zenmux_emulator` (a string is split on spaces) or `["uvx", "zenmux-emulator"]`.
   * Default: `ZENMUX_EMULATOR_COMMAND`, else `zenmux-emulator` on PATH. */
  command?: string | string[];
  /** Scenario files or folders for `--scenarios`; default none (rules come from `session.load`/`addRule`). */
  scenarios?: string | string[];
  /** `--strict`: unmatched requests get 404 `emulator_no_match` instead of a placeholder reply. */
  strict?: boolean;
  /** `--seed`. */
  seed?: number;
  /** `--clock`: freeze `created` at unix seconds or an ISO 8601 time. */
  clock?: number | string;
  /** More `serve` arguments, as given. */
  args?: string[];
  /** `--admin-token` of the emulator: sent on every control call (and passed to the one started). */
  adminToken?: string;
  /** Milliseconds to wait for the server's first answer (default 60,000). */
  startTimeout?: number;
}

export interface FaceInfo {
  name: string;
  title: string;
  base_url: string;
  routes: string[];
}

/** The helper's own variables: the server refuses an unknown `ZENMUX_EMULATOR_*`, so they are not passed on. */
const OWN_VARIABLES = ["ZENMUX_EMULATOR_COMMAND", "ZENMUX_EMULATOR_URL"];

export const INSTALL_HINT =
  "install the emulator's command (from a clone of the ZenMux Emulator repository: `make dist && pipx install " +
  "dist/zenmux_emulator-*.whl`, or `pip install .` into a virtualenv whose bin/ is on PATH), or name one with " +
  "ZENMUX_EMULATOR_COMMAND (e.g. `python -m zenmux_emulator`) or the `command` option, or attach to a running " +
  "emulator with ZENMUX_EMULATOR_URL or the `url` option";

/** A running emulator: its faces' base URLs, sessions on it, and `stop()` for the one it started. */
export class Emulator {
  readonly control: Control;
  private readonly faces: Map<string, FaceInfo>;

  constructor(
    readonly origin: string,
    faces: FaceInfo[],
    private readonly process?: ChildProcess,
    private readonly cleanup?: () => void,
    adminToken?: string,
  ) {
    this.control = new Control(origin, adminToken);
    this.faces = new Map(faces.map((face) => [face.name, face]));
  }

  /** The registered faces, as the server's index lists them. */
  get faceNames(): string[] {
    return [...this.faces.keys()];
  }

  /** A face's base URL, as its SDK takes it: `chat` is `…/api/v1`, `anthropic` `…/api/anthropic`, `vertex` `…/api/vertex-ai`. */
  baseUrl(face = "chat"): string {
    const found = this.faces.get(face);
    if (!found) throw new Error(`zenmux: no face ${JSON.stringify(face)} (the server has ${this.faceNames.join(", ")})`);
    return found.base_url;
  }

  /** A session of its own: one API key, named after `name` (a test's name), with its own journal and rules. */
  session(name: string): Session {
    return new Session(this, name);
  }

  /** Stop the server this started (attached ones are left running). */
  async stop(): Promise<void> {
    const child = this.process;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    this.cleanup?.();
  }
}

/** Start `zenmux-emulator serve` on a free loopback port (or attach to `options.url`) and wait until it answers. */
export async function startEmulator(options: StartOptions = {}): Promise<Emulator> {
  const adminToken = options.adminToken;
  const url = options.url ?? process.env.ZENMUX_EMULATOR_URL;
  if (url) {
    const origin = new URL(url).origin;
    return new Emulator(origin, await readFaces(origin, adminToken), undefined, undefined, adminToken);
  }
  const command = resolveCommand(options.command);
  let empty: string | undefined;
  let scenarios = options.scenarios === undefined ? [] : [options.scenarios].flat();
  if (scenarios.length === 0) {
    empty = mkdtempSync(join(tmpdir(), "zenmux-scenarios-"));
    scenarios = [empty];
  }
  const args = [...command.slice(1), ...serveArgs(options, scenarios)];
  const env = { ...process.env };
  for (const name of OWN_VARIABLES) delete env[name];
  const child = spawn(command[0], args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const cleanup = () => {
    process.off("exit", kill);
    if (empty) rmSync(empty, { recursive: true, force: true });
  };
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  try {
    const origin = await listening(child, command, options.startTimeout ?? 60_000);
    return new Emulator(origin, await readFaces(origin, adminToken), child, cleanup, adminToken);
  } catch (error) {
    child.kill("SIGKILL");
    cleanup();
    throw error;
  }
}

function serveArgs(options: StartOptions, scenarios: string[]): string[] {
  const args = ["serve", "--host", "127.0.0.1", "--port", "0", "--log-format", "json", "--log-level", "warning"];
  args.push("--scenarios", ...scenarios);
  if (options.strict) args.push("--strict");
  if (options.seed !== undefined) args.push("--seed", String(options.seed));
  if (options.clock !== undefined) args.push("--clock", String(options.clock));
  if (options.adminToken) args.push("--admin-token", options.adminToken);
  return [...args, ...(options.args ?? [])];
}

/** The command as argv: the option, `ZENMUX_EMULATOR_COMMAND`, or `zenmux-emulator` found on PATH. */
export function resolveCommand(command?: string | string[]): string[] {
  const given = command ?? process.env.ZENMUX_EMULATOR_COMMAND;
  if (given !== undefined && given.length > 0) {
    const argv = typeof given === "string" ? given.trim().split(/\s+/) : given;
    if (argv.length > 0 && argv[0]) return argv;
  }
  const found = onPath("zenmux-emulator");
  if (!found) throw new Error(`zenmux: no \`zenmux-emulator\` command on PATH: ${INSTALL_HINT}`);
  return [found];
}

function onPath(name: string): string | undefined {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The origin the server prints in its first JSON start line, or an error with what it said on stderr. */
function listening(child: ChildProcess, command: string[], timeout: number): Promise<string> {
  const said: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => {
    said.push(line);
    if (said.length > 40) said.shift();
  });
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      const tail = said.length ? `; it said:\n${said.join("\n")}` : "";
      reject(new Error(`zenmux: \`${command.join(" ")} serve\` ${why}${tail}`));
    };
    const timer = setTimeout(() => fail(`did not answer within ${timeout} ms`), timeout);
    child.once("error", (error: NodeJS.ErrnoException) => {
      const missing = error.code === "ENOENT";
      fail(missing ? `could not be started (no such command): ${INSTALL_HINT}` : `could not be started: ${error.message}`);
    });
    child.once("exit", (code, signal) => fail(`exited (${signal ?? `code ${code}`}) before it listened`));
    let found = false;
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (found) return;
      try {
        const url = JSON.parse(line).url;
        if (typeof url === "string") {
          found = true;
          clearTimeout(timer);
          child.removeAllListeners("exit");
          resolve(new URL(url).origin);
        }
      } catch {
        // not a JSON start line
      }
    });
  });
}

async function readFaces(origin: string, adminToken?: string): Promise<FaceInfo[]> {
  const index = await new Control(origin, adminToken).call<{ faces: FaceInfo[] }>("GET", "/");
  if (!Array.isArray(index.faces)) throw new Error(`zenmux: ${origin}/_emulator/ is not the emulator's index`);
  return index.faces;
}
