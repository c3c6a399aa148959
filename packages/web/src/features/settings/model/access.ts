import { canAccessOption, isRoot, type OptionKey } from '@tollway/shared';
import { getStoredUser } from '../../../lib/storage';

/**
 * What the signed-in user may see and change here, by the server's per-key rule (option-access in shared): root
 * every option, an administrator the operation settings. The server enforces it; the console only hides the rest.
 */
export const canEditOption = (key: OptionKey): boolean => canAccessOption(getStoredUser()?.role, key);

/** Actions only root may take from the settings page (e.g. deleting old logs: DELETE /api/log/ is root-only). */
export const isRootUser = (): boolean => isRoot(getStoredUser()?.role);
