"""Thin views, one module per part of the dashboard: look things up, hand them to the engine
or a form, render. Pages are server-rendered; live regions are inline partials of the page
template, answered with ``template#partial`` so the first render and every update share one
fragment."""
