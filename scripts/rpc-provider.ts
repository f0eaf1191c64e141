// `npm run chain:provider -- --upstream http://127.0.0.1:8545 [--port 8546] [--control-port 8547]`: the hosted-
// provider stand-in (src/testing/rpc-provider.ts) as its own process, for a drill against a running deployment:
// point the deployment's CHAIN_RPC_URL at the printed provider URL, then switch behaviours through the control
// API (src/testing/rpc-provider-control.ts), e.g. `curl -X POST $CONTROL/hideReceipts -d '{"forMs":60000}'`.
// The first line printed is JSON ({"provider": url, "control": url}) for scripts; Ctrl-C stops it. Test tool:
// it listens on 127.0.0.1 only and its control API has no authentication.
import { parseArgs } from 'node:util';
import { startProviderControl } from '../src/testing/rpc-provider-control.js';
import { startProviderProxy } from '../src/testing/rpc-provider.js';

const { values } = parseArgs({
  options: { upstream: { type: 'string' }, port: { type: 'string' }, 'control-port': { type: 'string' } },
});
const upstream = values.upstream ?? process.env.CHAIN_RPC_URL;
if (!upstream) {
  process.stderr.write('rpc-provider: --upstream <node JSON-RPC URL> (or CHAIN_RPC_URL) is required\n');
  process.exit(2);
}
const proxy = await startProviderProxy({ upstream, port: values.port ? Number(values.port) : undefined });
const control = await startProviderControl(proxy, values['control-port'] ? Number(values['control-port']) : 0);
process.stdout.write(`${JSON.stringify({ provider: proxy.url, control: control.url })}
provider stand-in for ${upstream}
  provider  ${proxy.url}   (give it to the deployment as CHAIN_RPC_URL)
  control   ${control.url}

export CONTROL=${control.url}
curl -s -X POST $CONTROL/hideReceipts -d '{"forMs":60000}'                       # receipts null for 60 s after mining
curl -s -X POST $CONTROL/rateLimit -d '{"requests":20,"retryAfterSeconds":2}'    # the next 20 requests: 429
curl -s -X POST $CONTROL/capLogs -d '"quicknode"'                                # eth_getLogs over 5 blocks: 413
curl -s -X POST $CONTROL/lag -d 5                                                # reads from a node 5 blocks behind
curl -s -X POST $CONTROL/stall -d '{"methods":["eth_sendRawTransaction"],"phase":"response"}'
curl -s -X POST $CONTROL/refuse; curl -s -X POST $CONTROL/resume                 # node unreachable, then back
curl -s -X POST $CONTROL/reset; curl -s $CONTROL/counts                          # all off; requests per method
`);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => {
    void Promise.all([control.stop(), proxy.stop()]).finally(() => process.exit(0));
  });
