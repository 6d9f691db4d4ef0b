"""The service's routes, one router per resource: stores, analyses (the command layer's quick
routes and its catalogue), jobs, and the HTML pages."""
