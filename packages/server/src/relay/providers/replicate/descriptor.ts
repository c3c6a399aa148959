import { ChannelType } from '@tollway/shared';
import { defineProvider } from '../descriptor.js';
import { replicateAdaptor, replicateFormat } from './adaptor.js';

/** Replicate: image generation through predictions (no chat). */
export const replicateProvider = defineProvider({
  name: 'replicate',
  types: [ChannelType.Replicate],
  formats: { replicate: replicateFormat },
  adaptor: replicateAdaptor,
});
