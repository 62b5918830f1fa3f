import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["@mneme/source"] },
  ssr: { resolve: { conditions: ["@mneme/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/buildCli.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
