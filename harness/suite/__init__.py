"""Suite stage: expectations shipped to the guest, its results and KTAP."""
