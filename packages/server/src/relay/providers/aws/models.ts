/**
 * Claude model names → Bedrock model ids (AWS's model catalogue). `profile`: the model is served on demand only
 * through a cross-region inference profile, whose id is the model id prefixed with the region's geography
 * ("us.", "eu.", "apac.").
 */
const CLAUDE_ON_BEDROCK: Record<string, { id: string; profile: boolean }> = {
  'claude-instant-1.2': { id: 'anthropic.claude-instant-v1', profile: false },
  'claude-2.0': { id: 'anthropic.claude-v2', profile: false },
  'claude-2.1': { id: 'anthropic.claude-v2:1', profile: false },
  'claude-3-haiku-20240307': { id: 'anthropic.claude-3-haiku-20240307-v1:0', profile: false },
  'claude-3-sonnet-20240229': { id: 'anthropic.claude-3-sonnet-20240229-v1:0', profile: false },
  'claude-3-opus-20240229': { id: 'anthropic.claude-3-opus-20240229-v1:0', profile: false },
  'claude-3-5-sonnet-20240620': { id: 'anthropic.claude-3-5-sonnet-20240620-v1:0', profile: false },
  'claude-3-5-sonnet-20241022': { id: 'anthropic.claude-3-5-sonnet-20241022-v2:0', profile: false },
  'claude-3-5-haiku-20241022': { id: 'anthropic.claude-3-5-haiku-20241022-v1:0', profile: false },
  'claude-3-7-sonnet-20250219': { id: 'anthropic.claude-3-7-sonnet-20250219-v1:0', profile: true },
  'claude-sonnet-4-20250514': { id: 'anthropic.claude-sonnet-4-20250514-v1:0', profile: true },
  'claude-opus-4-20250514': { id: 'anthropic.claude-opus-4-20250514-v1:0', profile: true },
  'claude-opus-4-1-20250805': { id: 'anthropic.claude-opus-4-1-20250805-v1:0', profile: true },
  'claude-sonnet-4-5-20250929': { id: 'anthropic.claude-sonnet-4-5-20250929-v1:0', profile: true },
  'claude-haiku-4-5-20251001': { id: 'anthropic.claude-haiku-4-5-20251001-v1:0', profile: true },
};

/** The geography prefix of a region's cross-region inference profiles. */
export function profilePrefix(region: string): string {
  if (region.startsWith('us-gov-')) return 'us-gov';
  if (region.startsWith('us-') || region.startsWith('ca-')) return 'us';
  if (region.startsWith('eu-')) return 'eu';
  if (region.startsWith('ap-')) return 'apac';
  return 'us';
}

/**
 * The Bedrock model id for a model name in a region: names in the table map to their id (with the region's
 * profile prefix where on-demand use needs one); anything else is taken as a Bedrock id or profile as is.
 */
export function bedrockModelId(model: string, region: string): string {
  const known = CLAUDE_ON_BEDROCK[model];
  if (!known) return model;
  return known.profile ? `${profilePrefix(region)}.${known.id}` : known.id;
}
