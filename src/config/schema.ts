import { z } from "zod";

export const PROVIDERS = [
  "openai",
  "anthropic",
  "google",
  "openrouter",
  "ollama",
  "openai-compatible",
] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export const APPROVAL_MODES = ["ask", "auto-edit", "auto", "read-only"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** `provider/model`; the model part may itself contain slashes (openrouter/google/gemini-2.5-flash). */
export const modelIdSchema = z
  .string()
  .regex(/^[a-z-]+\/.+$/, "expected provider/model, e.g. anthropic/claude-sonnet-4-5");

/** USD per million tokens. */
const priceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cached_input: z.number().nonnegative().optional(),
  cache_write: z.number().nonnegative().optional(),
});

const modelEntrySchema = z.strictObject({
  context_window: z.number().int().positive().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  price: priceSchema.optional(),
  /** `text` for models without native tool calling: calls are read from the reply text. */
  tool_calls: z.enum(["native", "text"]).optional(),
});

const providerSchema = z.strictObject({
  api_key_env: z.string().min(1).optional(),
  base_url: z.url().optional(),
});

export const configSchema = z.strictObject({
  model: modelIdSchema.optional(),
  profiles: z
    .strictObject({
      default: modelIdSchema.optional(),
      cheap: modelIdSchema.optional(),
      strong: modelIdSchema.optional(),
      review: modelIdSchema.optional(),
    })
    .default({}),
  providers: z.partialRecord(z.enum(PROVIDERS), providerSchema).default({}),
  models: z.record(modelIdSchema, modelEntrySchema).default({}),
  approval: z.enum(APPROVAL_MODES).optional(),
  max_iterations: z.number().int().positive().default(25),
  /** Tool calls one `cairn do` turn (or one plan step) may make before it must answer. */
  max_tool_calls: z.number().int().positive().default(50),
  max_cost_usd: z.number().positive().optional(),
  tools: z
    .strictObject({
      allow: z.array(z.string()).optional(),
      deny: z.array(z.string()).default([]),
    })
    .default({ deny: [] }),
  workspace: z
    .strictObject({
      /** Folders outside the workspace that file tools may read and write. */
      extra_roots: z.array(z.string()).default([]),
    })
    .default({ extra_roots: [] }),
  commands: z
    .strictObject({
      timeout_ms: z.number().int().positive().default(120_000),
    })
    .default({ timeout_ms: 120_000 }),
  verify: z.string().optional(),
  /** Per-request network timeout for model calls. */
  request_timeout_ms: z.number().int().positive().default(120_000),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type ModelEntry = z.infer<typeof modelEntrySchema>;
export type Price = z.infer<typeof priceSchema>;
