/**
 * The code of an input check's failure (shared with the console and the option checks): from the kind of the
 * schema's rule, or the code a refinement carries (inputRule in @tollway/shared), so the console words it in the
 * viewer's language.
 */
export { inputRefusal, type InputRefusal } from '@tollway/shared';
