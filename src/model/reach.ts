import { connect } from "node:net";
import {
  type ModelChoice,
  missingKeyVariable,
  PROVIDER_SPECS,
  type ProviderSpec,
  parseModelId,
} from "./providers.js";

/** How long the provider's address may take to accept a connection before it counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

function canConnect(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => done(`no answer within ${CONNECT_TIMEOUT_MS / 1000}s`));
    socket.once("connect", () => done(undefined));
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

/**
 * What stands between cairn and a model before any request is made: no key where one is needed,
 * no address, or an address nothing answers at. A connection, not a request: nothing is spent
 * and nothing is sent. Undefined when the model looks reachable.
 */
export async function unreachableModel(
  modelId: string,
  choice: Pick<ModelChoice, "providers">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const { provider } = parseModelId(modelId);
  const missing = missingKeyVariable(modelId, choice, env);
  if (missing) return `${modelId} needs an API key: set the environment variable ${missing}`;
  const spec: ProviderSpec = PROVIDER_SPECS[provider];
  const base = choice.providers[provider]?.base_url ?? spec.baseUrl;
  if (!base) return `${modelId} needs the server's address: pass --base-url`;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return `${modelId}: the base URL ${base} is not a URL`;
  }
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  const problem = await canConnect(url.hostname.replace(/^\[|\]$/g, ""), port);
  return problem
    ? `${modelId} cannot be reached at ${url.host} (${problem}): check the network and --base-url`
    : undefined;
}
