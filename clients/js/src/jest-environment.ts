/** Jest's `testEnvironment: "zenmux-emulator/jest/environment"`: Node's environment, and a failed test's first
 * error starts with the emulator's account of its requests no rule matched (read by `useZenmux`'s `afterEach`). */

import { TestEnvironment } from "jest-environment-node";

interface Failed {
  name: string;
  test?: { errors: unknown[] };
}

function prefix(error: unknown, account: string): void {
  const first = Array.isArray(error) ? (error[0] ?? error[1]) : error;
  if (first && typeof first === "object") {
    const carrier = first as { message?: string; stack?: string };
    carrier.message = `${account}\n\n${carrier.message ?? ""}`;
    if (carrier.stack) carrier.stack = `${account}\n\n${carrier.stack}`;
  }
}

export default class ZenmuxEnvironment extends TestEnvironment {
  async handleTestEvent(event: Failed): Promise<void> {
    const global = this.global as { __zenmuxAccount?: string };
    if (event.name === "test_start") global.__zenmuxAccount = "";
    if (event.name === "test_done" && event.test && event.test.errors.length > 0 && global.__zenmuxAccount) {
      prefix(event.test.errors[0], global.__zenmuxAccount);
    }
  }
}
