/** `zenmux-emulator/vitest`: Vitest's `test` with a `zenmux` fixture, a `Session` named after the test and disposed
 * after it, on one emulator per worker. A failed test's first error starts with the emulator's account of the
 * requests no rule matched. */

import { test as base } from "vitest";

import { startEmulator, type Emulator, type StartOptions } from "./emulator.js";
import type { Session } from "./session.js";

export interface ZenmuxFixtures {
  zenmux: Session;
}

export interface ZenmuxWorkerFixtures {
  /** The options of the worker's emulator; override with `test.extend({ zenmuxOptions: [{…}, { scope: "worker" }] })`. */
  zenmuxOptions: StartOptions;
  zenmuxEmulator: Emulator;
}

interface Named {
  name: string;
  suite?: Named;
  file?: { name: string };
}

/** The test's full name: its file, its suites and its own name. */
function fullName(task: Named): string {
  const names: string[] = [];
  for (let at: Named | undefined = task; at; at = at.suite) if (at.name) names.unshift(at.name);
  return [task.file?.name, ...names].filter(Boolean).join(" > ");
}

export const test = base.extend<ZenmuxFixtures & ZenmuxWorkerFixtures>({
  zenmuxOptions: [{}, { scope: "worker" }],
  zenmuxEmulator: [
    async ({ zenmuxOptions }, use) => {
      const emulator = await startEmulator(zenmuxOptions);
      await use(emulator);
      await emulator.stop();
    },
    { scope: "worker" },
  ],
  zenmux: async ({ zenmuxEmulator, task, onTestFailed }, use) => {
    const session = zenmuxEmulator.session(fullName(task as Named));
    onTestFailed(async ({ task: failed }) => {
      const account = await session.account();
      const first = failed.result?.errors?.[0];
      if (account && first) {
        first.message = `${account}\n\n${first.message}`;
        if (first.stack) first.stack = `${account}\n\n${first.stack}`;
      }
    });
    await use(session);
    await session.dispose();
  },
});

export const it = test;
export { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from "vitest";
