"""houndgraph: attack-path analysis for Active Directory and Azure, speaking the BloodHound CE API."""

__version__ = "0.1.0"
