"""Views (layer 3): read-only assemblies of the Blackboard for people and agents, the
mission dashboard (status), the context pack an agent reads first (context) and the set-up
check (doctor).

They read; they never change a file. Modules here may import every lower layer and the
integrations they report on (doctor inspects gridgit.git and gridgit.watch); only the
interface imports them.
"""
