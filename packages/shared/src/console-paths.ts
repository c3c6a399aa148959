/**
 * The documentation's pages in the console (`/docs`, `/docs/<path>.md`). They are readable before setup, so an
 * operator can read how to install and configure the version they are setting up; every other page leads to /setup.
 */
export const DOCS_PAGE_PATH = '/docs';

/** Whether a console pathname is one of the documentation's pages. */
export function isDocsPage(pathname: string): boolean {
  return pathname === DOCS_PAGE_PATH || pathname.startsWith(`${DOCS_PAGE_PATH}/`);
}
