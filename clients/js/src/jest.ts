/** `zenmux-emulator/jest`: `useZenmux()` gives each test a `Session` named after it (made in `beforeEach`,
 * disposed in `afterEach`), on the emulator `zenmux-emulator/jest/global-setup` started for the run (or, without
 * it, one started for the file). With `testEnvironment: "zenmux-emulator/jest/environment"`, a failed test's
 * message starts with the emulator's account of the requests no rule matched. */

import { startEmulator, type Emulator, type StartOptions } from "./emulator.js";
import type { Session } from "./session.js";

type Hook = (fn: () => Promise<void>) => void;

interface JestGlobals {
  beforeAll: Hook;
  afterAll: Hook;
  beforeEach: Hook;
  afterEach: Hook;
  expect: { getState(): { currentTestName?: string; testPath?: string } };
  /** What the environment puts before a failed test's message (`zenmux-emulator/jest/environment`). */
  __zenmuxAccount?: string;
}

/** Register the hooks and return the current test's session (only usable inside a test or its hooks). */
export function useZenmux(options: StartOptions = {}): Session {
  const jest = globalThis as unknown as JestGlobals;
  let emulator: Promise<Emulator> | undefined;
  let current: Session | undefined;
  jest.beforeAll(async () => {
    emulator = startEmulator(options);
    await emulator;
  });
  jest.afterAll(async () => {
    await (await emulator)?.stop();
  });
  jest.beforeEach(async () => {
    const state = jest.expect.getState();
    const file = state.testPath ? state.testPath.split(/[\\/]/).pop() : undefined;
    current = (await emulator!).session([file, state.currentTestName ?? "test"].filter(Boolean).join(" > "));
    jest.__zenmuxAccount = "";
  });
  jest.afterEach(async () => {
    const session = current;
    current = undefined;
    if (!session) return;
    try {
      jest.__zenmuxAccount = await session.account();
    } finally {
      await session.dispose();
    }
  });
  return new Proxy({} as Session, {
    get(_target, property) {
      if (!current) throw new Error("zenmux: the session exists inside a test (and its beforeEach/afterEach) only");
      const value = Reflect.get(current, property, current);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}
