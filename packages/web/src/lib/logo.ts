// The default logo inlined in the bundle (a data: URL): the shell and the sign-in card draw it without a request of
// their own. public/logo.svg stays the file behind /logo.svg (the tab icon, links to it).
import inlined from '../../public/logo.svg?inline';

export const DEFAULT_LOGO: string = inlined;
/** The tab icon's address when the operator set no logo (index.html's own). */
export const DEFAULT_ICON = '/logo.svg';
