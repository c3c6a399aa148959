import { describe, expect, it } from 'vitest';
import { RelayError } from '../../src/relay/pipeline/errors.js';
import { MCP_TOOLS_PER_REQUEST_MAX, mcpSpecsOf, sameServerUrl } from '../../src/relay/mcp/responses/spec.js';
import { addUsage } from '../../src/relay/mcp/responses/round.js';

const refusal = (f: () => unknown): { status: number; code: string | null; param: string | null } => {
  try {
    f();
  } catch (err) {
    if (err instanceof RelayError) return { status: err.status, code: err.code, param: err.param };
    throw err;
  }
  throw new Error('not refused');
};

/** The `mcp` tools of a Responses request as Tollway reads them (OpenAI's fields), and what it refuses. */
describe('Responses mcp tool specs', () => {
  it('reads the label, allowed_tools as a list or a filter, and an optional server_url', () => {
    const [a, b, c] = mcpSpecsOf([
      { type: 'function', name: 'own' },
      { type: 'mcp', server_label: 'docs', allowed_tools: ['search', 'read'], require_approval: 'never' },
      { type: 'mcp', server_label: 'crm', allowed_tools: { tool_names: ['find'], read_only: true } },
      { type: 'mcp', server_label: 'git', server_url: 'https://git.example/mcp', headers: { X: '1' } },
    ]);
    expect([...a!.names!]).toEqual(['search', 'read']);
    expect(a!.readOnly).toBe(false);
    expect([...b!.names!]).toEqual(['find']);
    expect(b!.readOnly).toBe(true);
    expect(c).toEqual({ label: 'git', names: undefined, readOnly: false, url: 'https://git.example/mcp' });
  });

  it('refuses approvals, connectors, tunnels, bad fields, a label twice and too many servers', () => {
    const one = (t: Record<string, unknown>) => () => mcpSpecsOf([{ type: 'mcp', server_label: 'docs', ...t }]);
    expect(refusal(one({ require_approval: 'always' }))).toEqual({
      status: 400,
      code: 'unsupported_parameter',
      param: 'tools[0].require_approval',
    });
    expect(refusal(one({ require_approval: { never: { tool_names: ['a'] } } })).code).toBe('unsupported_parameter');
    expect(refusal(one({ connector_id: 'connector_gmail' })).param).toBe('tools[0].connector_id');
    expect(refusal(one({ tunnel_id: 't1' })).param).toBe('tools[0].tunnel_id');
    expect(refusal(one({ server_label: '' })).code).toBe('invalid_value');
    expect(refusal(one({ server_url: 42 })).code).toBe('invalid_value');
    expect(refusal(one({ allowed_tools: 'search' })).code).toBe('invalid_value');
    expect(refusal(one({ allowed_tools: [null] })).code).toBe('invalid_value');
    expect(refusal(one({ allowed_tools: { tool_names: 'search' } })).code).toBe('invalid_value');
    const twice = [1, 2].map(() => ({ type: 'mcp', server_label: 'docs' }));
    expect(refusal(() => mcpSpecsOf(twice)).param).toBe('tools');
    const many = Array.from({ length: MCP_TOOLS_PER_REQUEST_MAX + 1 }, (_, i) => ({
      type: 'mcp',
      server_label: `s${i}`,
    }));
    expect(refusal(() => mcpSpecsOf(many)).param).toBe('tools');
  });

  it("compares a caller's server_url with the registered one as URLs", () => {
    expect(sameServerUrl('https://mcp.example/mcp/', 'https://mcp.example/mcp')).toBe(true);
    expect(sameServerUrl('HTTPS://MCP.example/mcp', 'https://mcp.example/mcp')).toBe(true);
    expect(sameServerUrl('https://mcp.example/other', 'https://mcp.example/mcp')).toBe(false);
    expect(sameServerUrl('https://evil.example/mcp', 'https://mcp.example/mcp')).toBe(false);
    expect(sameServerUrl('http://mcp.example/mcp', 'https://mcp.example/mcp')).toBe(false);
    expect(sameServerUrl('not a url', 'https://mcp.example/mcp')).toBe(false);
    expect(sameServerUrl('https://mcp.example/mcp', '')).toBe(false);
  });

  it('adds up the usage of every round', () => {
    const round = { input_tokens: 10, output_tokens: 3, total_tokens: 13, input_tokens_details: { cached_tokens: 2 } };
    const total = addUsage(addUsage(undefined, round), { ...round, output_tokens_details: { reasoning_tokens: 1 } });
    expect(total).toMatchObject({
      input_tokens: 20,
      output_tokens: 6,
      total_tokens: 26,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens_details: { reasoning_tokens: 1 },
    });
    expect(round.input_tokens).toBe(10);
  });
});
