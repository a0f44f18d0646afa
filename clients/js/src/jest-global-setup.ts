/** Jest's `globalSetup: "zenmux-emulator/jest/global-setup"`: one emulator for the whole run, its address handed to
 * every worker as `ZENMUX_EMULATOR_URL` (already set: it is used as it is). Options: the project's
 * `globals.zenmux` (`{"scenarios": "…", "strict": true, …}`). */

import { startEmulator, type StartOptions } from "./emulator.js";

export default async function globalSetup(_global: unknown, project?: { globals?: { zenmux?: StartOptions } }): Promise<void> {
  if (process.env.ZENMUX_EMULATOR_URL) return;
  const emulator = await startEmulator(project?.globals?.zenmux ?? {});
  process.env.ZENMUX_EMULATOR_URL = emulator.origin;
  (globalThis as { __ZENMUX_EMULATOR__?: unknown }).__ZENMUX_EMULATOR__ = emulator;
}
