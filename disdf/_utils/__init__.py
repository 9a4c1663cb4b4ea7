"""Private helpers of the library: parameter tables, threads, atomic files, float32 input, memory release.

Nothing here is API: the public names are exported from :mod:`disdf`.
"""
