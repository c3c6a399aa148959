import { midjourneyPlatform } from './midjourney/platform.js';
import type { TaskPlatform } from './types.js';
import { sunoPlatform } from './suno/platform.js';
import { klingPlatform, openAIVideoPlatform } from './video/platform.js';
import { doubaoVideoPlatform, jimengPlatform, viduPlatform } from './video/vendors.js';

/** Every task platform, one line each. */
export const taskPlatforms: TaskPlatform[] = [
  midjourneyPlatform,
  sunoPlatform,
  klingPlatform,
  openAIVideoPlatform,
  jimengPlatform,
  viduPlatform,
  doubaoVideoPlatform,
];

/** Adds a platform (tests register fakes); a later one with the same name replaces the earlier. */
export function registerTaskPlatform(p: TaskPlatform): () => void {
  const i = taskPlatforms.findIndex((q) => q.name === p.name);
  if (i >= 0) taskPlatforms.splice(i, 1, p);
  else taskPlatforms.push(p);
  return () => {
    const j = taskPlatforms.indexOf(p);
    if (j >= 0) taskPlatforms.splice(j, 1);
  };
}

export const taskPlatformByName = (name: string): TaskPlatform | undefined =>
  taskPlatforms.find((p) => p.name === name);

export const taskPlatformForChannelType = (type: number): TaskPlatform | undefined =>
  taskPlatforms.find((p) => p.channelTypes.includes(type));
