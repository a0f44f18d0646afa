/** Jest's `globalTeardown: "zenmux-emulator/jest/global-teardown"`: stops the emulator the global setup started. */

import type { Emulator } from "./emulator.js";

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as { __ZENMUX_EMULATOR__?: Emulator };
  const emulator = holder.__ZENMUX_EMULATOR__;
  if (!emulator) return;
  delete holder.__ZENMUX_EMULATOR__;
  delete process.env.ZENMUX_EMULATOR_URL;
  await emulator.stop();
}
