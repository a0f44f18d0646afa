// Jest with the helper: one emulator for the run, a session per test, the unmatched account first on failure.
export default {
  testEnvironment: "zenmux-emulator/jest/environment",
  globalSetup: "zenmux-emulator/jest/global-setup",
  globalTeardown: "zenmux-emulator/jest/global-teardown",
  testMatch: ["**/*.test.mjs"],
  transform: {},
  testTimeout: 120_000,
};
