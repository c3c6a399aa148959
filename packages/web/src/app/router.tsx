import { createBrowserRouter } from 'react-router';

/** Route table of spec 3 §2; the shell feature fills in layout, guards and pages. */
export const router = createBrowserRouter([{ path: '*', element: <div>Tollway</div> }]);
